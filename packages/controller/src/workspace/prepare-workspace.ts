import { mkdir, readdir, readFile, realpath, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ReinError } from "@rein/contracts";
import { git, gitText, nulFields } from "./git.ts";
import { originDir, type WorkspaceOrigin, writeOrigin } from "./workspace-origin.ts";

export interface PrepareRequest {
  /** The directory to run on. */
  source: string;
  workspaceRoot: string;
  runId: string;
  /** Copy a git repository's uncommitted changes to tracked files in, instead of refusing. */
  includeDirty?: boolean;
  now?: Date;
}

/** Never copied into a run's workspace, whatever `.gitignore` says. */
const ALWAYS_SKIPPED = ["node_modules/", ".rein/"];

/**
 * Makes `<workspaceRoot>/<runId>` from the user's directory without ever
 * writing to it: a git repository becomes a fresh worktree on branch
 * `rein/<runId>` (committed files only; a dirty tree is refused unless
 * `includeDirty`), anything else a copy that honours `.gitignore`, tracked
 * in a private repository beside the workspaces so its changes can be
 * diffed and applied.
 */
export async function prepareWorkspace(request: PrepareRequest): Promise<WorkspaceOrigin> {
  const source = await sourceDirectory(request.source);
  await mkdir(request.workspaceRoot, { recursive: true });
  const workspace = join(await realpath(request.workspaceRoot), request.runId);
  if ((await readdir(workspace).catch(() => [])).length > 0) {
    throw new ReinError("workspace_invalid", `the workspace ${workspace} already has files; expected a new run id`);
  }
  const createdAt = (request.now ?? new Date()).toISOString();
  const origin = (await isRepositoryTop(source))
    ? await worktreeOf(source, workspace, request, createdAt)
    : await copyOf(source, workspace, request, createdAt);
  await writeOrigin(request.workspaceRoot, origin);
  return origin;
}

async function sourceDirectory(path: string): Promise<string> {
  const real = await realpath(path).catch(() => undefined);
  if (!real || !(await stat(real)).isDirectory()) {
    throw new ReinError("workspace_invalid", `${path} is not a directory; expected the directory of the project to run on`);
  }
  return real;
}

async function isRepositoryTop(dir: string): Promise<boolean> {
  const top = await git(["rev-parse", "--show-toplevel"], { cwd: dir, okCodes: [128] });
  if (top.code !== 0) return false;
  return (await realpath(top.stdout.toString("utf8").trim())) === dir;
}

async function worktreeOf(source: string, workspace: string, request: PrepareRequest, createdAt: string): Promise<WorkspaceOrigin> {
  const head = await git(["rev-parse", "--verify", "HEAD^{commit}"], { cwd: source, okCodes: [128] });
  if (head.code !== 0)
    throw new ReinError(
      "workspace_invalid",
      `${source} is a git repository without a commit; expected at least one commit to start the run's branch from`,
    );
  const dirty = await dirtyFiles(source);
  if (dirty.length > 0 && !request.includeDirty) {
    const shown = dirty.slice(0, 5).join(", ") + (dirty.length > 5 ? ` and ${dirty.length - 5} more` : "");
    throw new ReinError(
      "workspace_invalid",
      `${source} has uncommitted changes (${shown}); commit or stash them, or pass --include-dirty to copy them into the run's workspace`,
      { details: { dirty } },
    );
  }
  const branch = `rein/${request.runId}`;
  await git(["worktree", "add", "--quiet", "-b", branch, workspace, "HEAD"], { cwd: source });
  const gitDir = await realpath(await gitText(["rev-parse", "--absolute-git-dir"], { cwd: workspace }));
  const dotGit = await readFile(join(workspace, ".git"), "utf8");
  const tracked = { gitDir, workTree: workspace };
  let baseCommit = await gitText(["rev-parse", "HEAD"], tracked);
  if (dirty.length > 0) {
    const patch = (await git(["diff", "--binary", "--no-ext-diff", "--no-textconv", "HEAD"], { cwd: source })).stdout;
    await git(["apply", "--index", "--binary", "-"], { ...tracked, cwd: workspace, input: patch });
    await git(["commit", "--quiet", "--no-verify", "-m", `rein: uncommitted changes of ${source} as the run began`], tracked);
    baseCommit = await gitText(["rev-parse", "HEAD"], tracked);
  }
  return {
    schemaVersion: 1,
    runId: request.runId,
    kind: "git-worktree",
    source,
    workspace,
    gitDir,
    branch,
    baseCommit,
    dotGit,
    includedDirty: dirty.length > 0,
    createdAt,
  };
}

/** Tracked files with staged or unstaged changes; untracked files are never copied, so they do not count. */
async function dirtyFiles(dir: string): Promise<string[]> {
  const status = await git(["status", "--porcelain=v1", "-z", "--untracked-files=no", "--ignore-submodules=all"], { cwd: dir });
  return nulFields(status.stdout)
    .map((entry) => entry.slice(3))
    .filter(Boolean);
}

async function copyOf(source: string, workspace: string, request: PrepareRequest, createdAt: string): Promise<WorkspaceOrigin> {
  const gitDir = join(originDir(request.workspaceRoot, request.runId), "git");
  await git(["init", "--quiet", "--bare", gitDir]);
  await writeFile(join(gitDir, "info", "exclude"), `${ALWAYS_SKIPPED.join("\n")}\n`);
  // Staged from the source with the private repository, so `.gitignore` is
  // honoured and nothing is written into the source.
  await git(["add", "--all", "."], { gitDir, workTree: source, cwd: source });
  await git(["commit", "--quiet", "--no-verify", "--allow-empty", "-m", `rein: ${source} as the run began`], {
    gitDir,
    workTree: source,
    cwd: source,
  });
  await mkdir(workspace, { recursive: true });
  await git(["checkout-index", "--all", "--force"], { gitDir, workTree: workspace, cwd: workspace });
  const baseCommit = await gitText(["rev-parse", "HEAD"], { gitDir });
  return { schemaVersion: 1, runId: request.runId, kind: "copy", source, workspace, gitDir, baseCommit, includedDirty: false, createdAt };
}
