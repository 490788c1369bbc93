import { rm } from "node:fs/promises";
import { join } from "node:path";
import { ReinError } from "@rein/contracts";
import { git } from "./git.ts";
import { originDir, readOrigin } from "./workspace-origin.ts";

/**
 * Deletes a run's workspace and its origin record. A worktree is removed
 * through git so the user's repository forgets it; its branch `rein/<runId>`
 * stays, since it may not have been merged yet.
 */
export async function removeWorkspace(workspaceRoot: string, runId: string): Promise<void> {
  const origin = await readOrigin(workspaceRoot, runId).catch((error: unknown) => {
    if (ReinError.hasCode(error, "not_found")) return undefined;
    throw error;
  });
  if (origin?.kind === "git-worktree") {
    await git(["worktree", "remove", "--force", origin.workspace], { cwd: origin.source }).catch(() => undefined);
  }
  await rm(join(workspaceRoot, runId), { recursive: true, force: true });
  await rm(originDir(workspaceRoot, runId), { recursive: true, force: true });
}
