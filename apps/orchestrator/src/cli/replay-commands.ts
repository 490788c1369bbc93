import { join } from "node:path";
import { ReinError } from "@rein/contracts";
import { readOrigin, type WorkspaceOrigin, writeRunStartTree } from "@rein/controller";
import { loadExample } from "../examples/load-example.ts";
import { exampleOf } from "../replay/example-of.ts";
import { renderReplayReport } from "../replay/replay-report.ts";
import { type ReplayApprovalRequest, type ReplayDecision, replayRun } from "../replay/replay-run.ts";
import { replayStep } from "../replay/replay-step.ts";
import { type IsolatedRuntime, openIsolatedRuntime } from "../replay/isolated-runtime.ts";
import { loadBundle } from "../trace/trace-bundle.ts";
import { readExport } from "../trace/trace-files.ts";
import { contextFlags, openContext } from "./cli-context.ts";
import type { CommandHandler, ParsedFlags } from "./command-spec.ts";
import type { REPLAY } from "./command-specs.ts";
import { resolveModels } from "./model-resolution.ts";
import { err } from "./output.ts";
import { localStepTools } from "./tool-modules.ts";

export const replayCommand: CommandHandler<typeof REPLAY> = async ({ source }, flags) => {
  checkReplayFlags(flags);
  const context = await openContext({ ...contextFlags(flags), embedRedis: true });
  try {
    const bundle = source.endsWith(".jsonl") ? await readExport(source) : await loadBundle(context.runtime, source);
    if (bundle.events.length === 0) throw new ReinError("not_found", `no trace for run ${source}`);
    const exampleName = flags.example ?? (bundle.state ? exampleOf(bundle.state.goal) : undefined);
    const example = exampleName ? await loadExample(exampleName) : undefined;
    if (example) err(`replaying with the tools of example ${example.name}`);
    // The example's config applies as it did when the run ran (`rein run` decides it the same way).
    const deployment = example ? resolveModels({ configFile: flags.config, example }).deployment : undefined;
    const scratch = await openIsolatedRuntime(context.config, "replay", deployment ?? {});
    try {
      const mode = flags["run-tools"] ? "real" : "stub";
      const allowExternal = Boolean(flags["allow-external"]);
      // The run's step workers carried config toolModules; the replay answers their calls from the recording too.
      const tools = await localStepTools(context.config, example);
      const seedDir = (mode === "real" && (await runStartTree(context.config.workspaceRoot, bundle.runId, scratch))) || example?.seedDir;
      const decide = personDeciding(flags);
      const report =
        flags.step !== undefined
          ? await replayStep(scratch, bundle, flags.step, { mode, allowExternal, tools, seedDir })
          : await replayRun(scratch, bundle, { mode, allowExternal, fromStep: flags["from-step"], tools, seedDir, decide });
      process.stdout.write(renderReplayReport(report));
      return report.identical ? 0 : 1;
    } finally {
      await scratch.discard();
    }
  } finally {
    await Promise.all(context.runtime.queues.all().map((queue) => queue.waitUntilReady()));
    await context.close();
  }
};

/**
 * A run on the user's directory (`rein run --workspace`, a seed) is replayed
 * on that directory's files as the run began, when this machine still has
 * the run's origin record; undefined otherwise.
 */
async function runStartTree(workspaceRoot: string, runId: string, scratch: IsolatedRuntime): Promise<string | undefined> {
  let origin: WorkspaceOrigin;
  try {
    origin = await readOrigin(workspaceRoot, runId);
  } catch (error) {
    if (ReinError.isInstance(error) && error.code === "not_found") return undefined;
    throw error;
  }
  const dir = join(scratch.config.workspaceRoot, ".run-start");
  await writeRunStartTree(origin, dir);
  err(`replaying on the files of ${origin.source} as the run began (commit ${origin.baseCommit.slice(0, 12)})`);
  return dir;
}

/** Flags that contradict each other, or that only mean something when tools really run, are refused before anything starts. */
function checkReplayFlags(flags: ParsedFlags<typeof REPLAY>): void {
  if (flags["run-tools"] && flags["stub-tools"])
    throw new ReinError("goal_invalid", "--run-tools and --stub-tools both given; expected one (stubbing is the default)");
  if (flags.approve && flags.deny) throw new ReinError("goal_invalid", "--approve and --deny both given; expected one");
  if (flags.step !== undefined && (flags.approve || flags.deny)) {
    throw new ReinError(
      "goal_invalid",
      "--step replays one step with nobody to decide its approvals (a call that needs one ends it); expected --approve or --deny without --step",
    );
  }
  const needsRealTools = (["approve", "deny", "allow-external"] as const).find((name) => flags[name]);
  if (needsRealTools && !flags["run-tools"]) {
    throw new ReinError(
      "goal_invalid",
      `--${needsRealTools} applies only to calls that really run; expected --run-tools with it (by default every call is answered from the recording)`,
    );
  }
}

/**
 * The person running the replay decides each call that really runs and
 * needs approval, with --approve or --deny; without either such a call
 * waits and the replay stops there.
 */
function personDeciding(flags: ParsedFlags<typeof REPLAY>): ((request: ReplayApprovalRequest) => ReplayDecision) | undefined {
  if (!flags.approve && !flags.deny) return undefined;
  const approver = `cli:${process.env.USER ?? "user"} (rein replay --${flags.approve ? "approve" : "deny"})`;
  return (request) => {
    err(
      `replay: ${flags.approve ? "approving" : "denying"} ${request.tool ?? "a call"} in step ${request.stepId ?? "?"} (${request.approvalId})`,
    );
    return flags.approve
      ? { decision: "approved", approver }
      : { decision: "denied", approver, reason: flags.reason ?? "denied from the command line" };
  };
}
