import { lstat, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ReinError } from "@rein/contracts";
import { z } from "@rein/tools";
import { git, gitText, nulFields } from "./git.ts";
import type { WorkspaceOrigin } from "./workspace-origin.ts";

/** git's letter: A added, M modified, D deleted, T type changed (e.g. a file became a symlink). */
const ChangeStatus = z.enum(["A", "M", "D", "T"]);

export interface ChangedFile {
  status: z.infer<typeof ChangeStatus>;
  path: string;
}

/** Never part of a run's changes, even in a repository whose `.gitignore` forgets them. */
const NEVER_CHANGES = [":(exclude,glob)**/node_modules/**", ":(exclude,glob)**/.rein/**"];

/**
 * Commits what the run left in its workspace (on branch `rein/<runId>` for a
 * worktree, so it can be merged as usual) and returns that commit. Taking it
 * again without new changes returns the same commit.
 */
export async function snapshotRun(origin: WorkspaceOrigin): Promise<string> {
  if (origin.kind === "git-worktree") await restoreDotGit(origin);
  const tracked = { gitDir: origin.gitDir, workTree: origin.workspace, cwd: origin.workspace };
  // A repository the run made inside its workspace (`git init`, a clone) is
  // not part of its changes: git cannot add one without a commit, and one
  // with commits would become an unappliable submodule entry.
  const untracked = nulFields((await git(["ls-files", "-z", "--others", "--exclude-standard"], tracked)).stdout);
  const nested = untracked.filter((path) => path.endsWith("/")).map((path) => `:(exclude,literal)${path.slice(0, -1)}`);
  await git(["add", "--all", "--", ".", ...NEVER_CHANGES, ...nested], tracked);
  const staged = await git(["diff", "--cached", "--quiet", "HEAD"], { ...tracked, okCodes: [1] });
  if (staged.code === 1) await git(["commit", "--quiet", "--no-verify", "-m", `rein: changes of run ${origin.runId}`], tracked);
  return gitText(["rev-parse", "HEAD"], tracked);
}

/** The files a run changed, relative to the directory it ran on. */
export async function changedFiles(origin: WorkspaceOrigin, commit: string): Promise<ChangedFile[]> {
  return parseNameStatus(
    nulFields((await git(["diff", "--name-status", "-z", "--no-renames", origin.baseCommit, commit], { gitDir: origin.gitDir })).stdout),
  );
}

/**
 * The files `git diff --name-status -z --no-renames` lists, as letter and
 * path fields in turn. A letter other than A, M, D or T (an unmerged file) or
 * a letter without its path is a `workspace_invalid` error.
 */
export function parseNameStatus(fields: readonly string[]): ChangedFile[] {
  const files: ChangedFile[] = [];
  for (let index = 0; index < fields.length; index += 2) {
    const [letter, path] = fields.slice(index, index + 2);
    const status = ChangeStatus.safeParse(letter);
    if (!status.success || path === undefined) {
      throw new ReinError(
        "workspace_invalid",
        `git diff listed ${JSON.stringify(letter)} for ${path === undefined ? "no path" : path}; expected a change letter (A, M, D or T) and a path`,
      );
    }
    files.push({ status: status.data, path });
  }
  return files;
}

/** The run's changes as a unified diff with paths relative to the directory it ran on. */
export async function unifiedDiff(origin: WorkspaceOrigin, commit: string): Promise<string> {
  return (
    await git(["diff", "--no-color", "--no-ext-diff", "--no-textconv", "--binary", origin.baseCommit, commit], { gitDir: origin.gitDir })
  ).stdout.toString("utf8");
}

/**
 * A run may rewrite its worktree's `.git` file (it is in the workspace); git
 * is never pointed at it by Rein, but a person who later runs git there
 * would be, so it is put back as git wrote it.
 */
async function restoreDotGit(origin: WorkspaceOrigin): Promise<void> {
  const path = join(origin.workspace, ".git");
  const entry = await lstat(path).catch(() => undefined);
  if (entry?.isFile() && (await readFile(path, "utf8")) === origin.dotGit) return;
  await rm(path, { recursive: true, force: true });
  await writeFile(path, origin.dotGit ?? "");
}
