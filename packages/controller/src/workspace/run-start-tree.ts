import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { ReinError } from "@rein/contracts";
import { git } from "./git.ts";
import type { WorkspaceOrigin } from "./workspace-origin.ts";

/**
 * Writes into `dir` the files of a run's workspace as the run began (its
 * origin's base commit): where a replay that really runs tools starts, since
 * the user's directory and the workspace have both moved on since. A run
 * that worked in a git worktree gets a repository here too, so the replay's
 * workspace is a worktree as the run's was (its `.git` file included).
 */
export async function writeRunStartTree(origin: WorkspaceOrigin, dir: string): Promise<void> {
  const archive = await git(["archive", "--format=tar", origin.baseCommit], { gitDir: origin.gitDir });
  await mkdir(dir, { recursive: true });
  const tar = spawn("tar", ["-x", "-C", dir], { stdio: ["pipe", "ignore", "pipe"] });
  const stderr: Buffer[] = [];
  tar.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
  tar.stdin.end(archive.stdout);
  const [code] = (await once(tar, "close")) as [number | null];
  if (code !== 0)
    throw new ReinError(
      "workspace_invalid",
      `could not unpack run ${origin.runId}'s starting files into ${dir}: ${Buffer.concat(stderr).toString("utf8").trim() || `tar exit ${code}`}`,
    );
  if (origin.kind !== "git-worktree") return;
  await git(["init", "--quiet", "-b", "main"], { cwd: dir });
  await git(["add", "-A"], { cwd: dir, gitDir: join(dir, ".git"), workTree: dir });
  await git(["commit", "--quiet", "--allow-empty", "-m", `the files as run ${origin.runId} began`], {
    cwd: dir,
    gitDir: join(dir, ".git"),
    workTree: dir,
  });
}
