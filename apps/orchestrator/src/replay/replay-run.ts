import { type AnyTool, ReinError, ReplayProvider, type ReinRuntime, type RunStatus, type StepStatus, type TypedTraceEvent } from "@rein/core";
import type { TraceBundle } from "../trace/trace-bundle.ts";
import { type Comparison, compareTraces } from "./compare-traces.ts";
import { runPrivately } from "./in-process-run.ts";
import { observationIdTranslator } from "./observation-ids.ts";
import { RecordedOutputs } from "./recorded-outputs.ts";
import { replayToolSet, type ToolMode } from "./replay-tools.ts";

export interface ReplayOptions {
  /** "real" re-executes tools in a fresh workspace; "stub" answers every call from the recording. */
  mode: ToolMode;
  /** Re-execute tools with `external` effect too. @defaultValue false */
  allowExternal?: boolean;
  /** Compare from this step on; earlier steps still run, to rebuild the state before it. */
  fromStep?: string;
  /** Tools beyond the built-ins (the example's), or replacements for them. */
  tools?: readonly AnyTool[];
  /** The directory the recorded run started from (the example's seed), copied into the fresh workspace. */
  seedDir?: string;
  timeoutMs?: number;
}

export interface ReplayReport {
  runId: string;
  identical: boolean;
  comparison: Comparison;
  /** How the run (or, for `--step`, the step) ended, recorded and replayed. */
  status: { recorded: RunStatus | StepStatus | null; replay: RunStatus | StepStatus };
  /** Tools answered from the recording instead of run. */
  stubbed: string[];
  /** Recorded model responses the replay never asked for. */
  unusedResponses: number;
}

/**
 * Re-runs a recorded run in `scratch` (a private prefix and workspace root)
 * with the recorded model outputs, under the same run id so idempotency
 * keys and paths line up, then compares every tool result with the
 * recording. Recorded approval decisions are made again, in order, per step.
 */
export async function replayRun(scratch: ReinRuntime, bundle: TraceBundle, options: ReplayOptions): Promise<ReplayReport> {
  if (!bundle.state) throw new ReinError("contract_invalid", `the recording of ${bundle.runId} has no run state, so its goal is unknown; export it again with \`rein trace export\``);
  if (options.fromStep && !bundle.events.some((event) => event.stepId === options.fromStep)) {
    throw new ReinError("goal_invalid", `run ${bundle.runId} has no step ${options.fromStep}`);
  }
  const recorded = new RecordedOutputs(bundle.events, bundle.artifacts);
  const { tools, stubbed } = await replayToolSet(scratch.config, options.tools ?? [], recorded, { mode: options.mode, allowExternal: options.allowExternal ?? false });
  const model = ReplayProvider.fromTrace(bundle.events, { translate: observationIdTranslator(bundle.events, scratch, bundle.runId) });
  const decisions = recordedDecisions(bundle.events);
  const result = await runPrivately(scratch, {
    goal: bundle.state.goal,
    workspaceDir: options.seedDir,
    tools,
    runId: bundle.runId,
    providers: { planner: model, worker: model, judge: model },
    decideApproval: (_approvalId, event) => decisions.get(event.stepId ?? "-")?.shift(),
    timeoutMs: options.timeoutMs,
  });
  const replayOutputs = new RecordedOutputs(result.events, await artifactsOf(scratch, result.events));
  const comparison = compareTraces(
    { runId: bundle.runId, events: bundle.events, outputs: recorded },
    { runId: bundle.runId, events: result.events, outputs: replayOutputs },
    { fromStep: options.fromStep },
  );
  // With stubbed tools the workspace is never changed, so the evaluator's own
  // checks (which run commands there) can decide differently: the end status
  // is then reported, not counted.
  const sameEnd = result.state.status === bundle.state.status || options.mode === "stub";
  return {
    runId: bundle.runId,
    identical: comparison.identical && sameEnd,
    comparison,
    status: { recorded: bundle.state.status, replay: result.state.status },
    stubbed: options.mode === "stub" ? ["(all)"] : stubbed,
    unusedResponses: model.unused(),
  };
}

function recordedDecisions(events: readonly TypedTraceEvent[]): Map<string, { decision: "approved" | "denied"; approver: string }[]> {
  const byStep = new Map<string, { decision: "approved" | "denied"; approver: string }[]>();
  for (const event of events) {
    if (event.kind !== "approval.decided") continue;
    const decision = event.payload.decision === "approved" ? "approved" : "denied";
    const key = event.stepId ?? "-";
    byStep.set(key, [...(byStep.get(key) ?? []), { decision, approver: `replay of ${event.payload.approver ?? "unknown"}` }]);
  }
  return byStep;
}

/** The artifacts a trace references, for comparing truncated outputs in full. */
export async function artifactsOf(runtime: ReinRuntime, events: readonly TypedTraceEvent[]) {
  const ids = events.flatMap(({ payload }) => ("artifactId" in payload && typeof payload.artifactId === "string" ? [payload.artifactId] : []));
  const artifacts = await Promise.all(ids.map((id) => runtime.artifacts.get(id)));
  return artifacts.filter((artifact) => artifact !== null);
}
