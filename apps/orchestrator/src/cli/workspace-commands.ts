import { dirname } from "node:path";
import { loadConfig } from "@rein/runtime";
import { applyRun, changedFiles, snapshotRun, unifiedDiff, readOrigin, type WorkspaceOrigin } from "@rein/controller";
import type { CommandHandler } from "./command-spec.ts";
import type { APPLY, DIFF } from "./command-specs.ts";
import { out } from "./output.ts";

/** The line `rein run` prints before the run starts. */
export function describeOrigin(origin: WorkspaceOrigin): string {
  const inside = origin.workspace.startsWith(`${origin.source}/`)
    ? `\nnote: the workspace lies inside ${origin.source} (workspaceRoot ${dirname(origin.workspace)}); tools that scan it, such as test runners, will see it: ignore .rein/ or set workspaceRoot elsewhere`
    : "";
  return (
    (origin.kind === "git-worktree"
      ? `workspace: ${origin.workspace} (git worktree of ${origin.source} on branch ${origin.branch}${origin.includedDirty ? ", with its uncommitted changes" : ""}; ${origin.source} itself is not touched)`
      : `workspace: ${origin.workspace} (a copy of ${origin.source}; ${origin.source} itself is not touched)`) + inside
  );
}

/**
 * What the run changed and how to take it, printed when `rein run` ends;
 * the commands carry the run's `--config`, which says where its workspace is.
 */
export async function printChanges(origin: WorkspaceOrigin, configFile?: string): Promise<void> {
  const files = await changedFiles(origin, await snapshotRun(origin));
  if (files.length === 0) {
    out(`changes: none (${origin.source} needs nothing applied)`);
    return;
  }
  out(`changes in ${origin.workspace}:`);
  for (const file of files) out(`  ${file.status} ${file.path}`);
  const config = configFile === undefined ? "" : ` --config ${configFile}`;
  out(`see them:   rein diff ${origin.runId}${config}`);
  out(`apply them: rein apply ${origin.runId}${config}   (writes them into ${origin.source})`);
  if (origin.branch) out(`or merge:   git -C ${origin.source} merge ${origin.branch}`);
}

export const diffCommand: CommandHandler<typeof DIFF> = async ({ runId }, flags) => {
  const config = loadConfig({ file: flags.config });
  const origin = await readOrigin(config.workspaceRoot, runId);
  process.stdout.write(await unifiedDiff(origin, await snapshotRun(origin)));
  return 0;
};

export const applyCommand: CommandHandler<typeof APPLY> = async ({ runId }, flags) => {
  const config = loadConfig({ file: flags.config });
  const origin = await readOrigin(config.workspaceRoot, runId);
  const result = await applyRun(origin);
  if (result.applied.length === 0) {
    out(
      result.unchanged.length === 0 ? `run ${origin.runId} changed nothing` : `${origin.source} already has run ${origin.runId}'s changes`,
    );
    return 0;
  }
  out(`applied to ${origin.source}:`);
  for (const file of result.applied) out(`  ${file.status} ${file.path}`);
  if (origin.kind === "git-worktree") out(`(not committed; review with git -C ${origin.source} diff)`);
  return 0;
};
