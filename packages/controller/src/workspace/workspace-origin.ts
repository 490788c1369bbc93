import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ReinError } from "@rein/contracts";
import { z } from "zod";

/**
 * Where a run's workspace came from, written when it is prepared and read by
 * `rein diff` and `rein apply`. It lives beside the workspaces, never inside
 * one, so nothing a run does can change which directory `apply` writes to.
 */
export const WorkspaceOrigin = z.object({
  schemaVersion: z.literal(1),
  runId: z.string(),
  /** `git-worktree`: a worktree of the user's repository on `branch`; `copy`: a copy tracked in a private repository. */
  kind: z.enum(["git-worktree", "copy"]),
  /** The user's directory, as a real path. */
  source: z.string(),
  workspace: z.string(),
  /** The repository that tracks the workspace: the worktree's git dir, or the copy's private one. */
  gitDir: z.string(),
  branch: z.string().optional(),
  /** The commit holding the workspace as the run began; `rein apply` compares the source against it. */
  baseCommit: z.string(),
  /** For a worktree: the `.git` file as git wrote it, restored before Rein runs git there. */
  dotGit: z.string().optional(),
  /** The source's uncommitted changes were copied in (`--include-dirty`). */
  includedDirty: z.boolean().default(false),
  createdAt: z.string(),
});
export type WorkspaceOrigin = z.infer<typeof WorkspaceOrigin>;

/** The directory holding a run's origin record (and, for a copy, its private repository). */
export function originDir(workspaceRoot: string, runId: string): string {
  if (!/^[a-zA-Z0-9_-]+$/.test(runId)) throw new ReinError("goal_invalid", `run id ${JSON.stringify(runId)} is not a safe directory name`);
  return join(workspaceRoot, ".origins", runId);
}

export async function writeOrigin(workspaceRoot: string, origin: WorkspaceOrigin): Promise<void> {
  const dir = originDir(workspaceRoot, origin.runId);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, "origin.json"), `${JSON.stringify(origin, null, 2)}\n`);
}

export async function readOrigin(workspaceRoot: string, runId: string): Promise<WorkspaceOrigin> {
  const file = join(originDir(workspaceRoot, runId), "origin.json");
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    throw new ReinError(
      "not_found",
      `run ${runId} did not run on a directory of yours (no ${file}); expected a run started with \`rein run --workspace DIR\` or a goal naming a seed, under workspaceRoot ${workspaceRoot} (a run started with another --config or REIN_WORKSPACE_ROOT is found with the same one)`,
    );
  }
  const parsed = WorkspaceOrigin.safeParse(JSON.parse(text));
  if (!parsed.success)
    throw new ReinError("contract_invalid", `${file} is not a workspace origin record: ${parsed.error.issues[0]?.message ?? "invalid"}`);
  return parsed.data;
}
