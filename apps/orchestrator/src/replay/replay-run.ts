import { ReinError, type StepStatus } from "@rein/contracts";
import type { RunStatus } from "@rein/contracts/run";
import { ReplayProvider } from "@rein/models";
import type { ReinRuntime } from "@rein/runtime";
import type { AnyTool } from "@rein/tools";
import { isTraceEventOf, type TypedTraceEvent } from "@rein/trace";
import type { TraceBundle } from "../trace/trace-bundle.ts";
import { type Comparison, compareTraces } from "./compare-traces.ts";
import { runPrivately } from "./in-process-run.ts";
import { observationIdTranslator } from "./observation-ids.ts";
import { RecordedOutputs } from "./recorded-outputs.ts";
import { DEFAULT_TOOL_MODE, replayToolSet, type ToolMode } from "./replay-tools.ts";

/** A call of a replay that waits for a person: it would really run. */
export interface ReplayApprovalRequest {
  approvalId: string;
  stepId: string | null;
  tool: string | null;
}

/** A person's decision about one call of a replay that would really run. */
export interface ReplayDecision {
  decision: "approved" | "denied";
  approver: string;
  reason?: string;
}

export interface ReplayOptions {
  /**
   * "stub" answers every call from the recording and runs nothing; "real"
   * re-executes tools in a fresh workspace.
   * @defaultValue DEFAULT_TOOL_MODE ("stub")
   */
  mode?: ToolMode;
  /**
   * The person's decision for a call that really runs and needs approval
   * (`rein replay --run-tools --approve | --deny`). Without it such a call
   * waits, and the replay ends there: the recording's `approval.decided`
   * events never decide a call that really runs.
   */
  decide?: (request: ReplayApprovalRequest) => ReplayDecision | undefined;
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
  /** Each call of the replay that a stubbed tool answered from the recording: none of them ran. */
  stubbedCalls: { stepId: string | null; index: number; tool: string }[];
  /** The call that waited for a person's approval when the replay ended there; null when none did. */
  waitingApproval: ReplayApprovalRequest | null;
  /** Recorded model responses the replay never asked for. */
  unusedResponses: number;
}

/**
 * Re-runs a recorded run in `scratch` (a private prefix and workspace root)
 * with the recorded model outputs, under the same run id so idempotency
 * keys and paths line up, then compares every tool result with the
 * recording. By default every tool is answered from the recording, so the
 * replay touches nothing. A recorded approval decision is made again only
 * for a stubbed call (it decides nothing that runs); a call that really runs
 * and needs approval waits for `options.decide`, a person's fresh decision.
 */
export async function replayRun(scratch: ReinRuntime, bundle: TraceBundle, options: ReplayOptions = {}): Promise<ReplayReport> {
  if (!bundle.state)
    throw new ReinError(
      "contract_invalid",
      `the recording of ${bundle.runId} has no run state, so its goal is unknown; export it again with \`rein trace export\``,
    );
  if (options.fromStep && !bundle.events.some((event) => event.stepId === options.fromStep)) {
    throw new ReinError("goal_invalid", `run ${bundle.runId} has no step ${options.fromStep}`);
  }
  const mode = options.mode ?? DEFAULT_TOOL_MODE;
  const recorded = new RecordedOutputs(bundle.events, bundle.artifacts);
  const { tools, stubbed } = await replayToolSet(scratch.config, options.tools ?? [], recorded, {
    mode,
    allowExternal: options.allowExternal ?? false,
  });
  const stubbedNames = new Set(mode === "stub" ? tools.map((tool) => tool.name) : stubbed);
  const model = ReplayProvider.fromTrace(bundle.events, { translate: observationIdTranslator(bundle.events, scratch, bundle.runId) });
  const decisions = recordedDecisions(bundle.events);
  const waiting: { request: ReplayApprovalRequest | null } = { request: null };
  const result = await runPrivately(scratch, {
    goal: bundle.state.goal,
    workspaceDir: options.seedDir,
    tools,
    runId: bundle.runId,
    providers: { planner: model, worker: model, judge: model },
    decideApproval: (approvalId, event) => {
      const request = {
        approvalId,
        stepId: event.stepId,
        tool: isTraceEventOf(event, "step.suspended") ? (event.payload.tool ?? null) : null,
      };
      const stub = request.tool !== null && stubbedNames.has(request.tool);
      const answer = stub ? decisions.get(decisionKey(request.stepId, request.tool ?? ""))?.shift() : options.decide?.(request);
      if (!answer) waiting.request = request;
      return answer;
    },
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
  const sameEnd = (result.state.status === bundle.state.status || mode === "stub") && waiting.request === null;
  return {
    runId: bundle.runId,
    identical: comparison.identical && sameEnd,
    comparison,
    status: { recorded: bundle.state.status, replay: result.state.status },
    stubbed: mode === "stub" ? ["(all)"] : stubbed,
    stubbedCalls: stubbedCallsOf(result.events, stubbedNames),
    waitingApproval: waiting.request,
    unusedResponses: model.unused(),
  };
}

const decisionKey = (stepId: string | null, tool: string) => `${stepId ?? "-"}|${tool}`;

/**
 * The recording's decisions, in order per step and tool. They answer only
 * stubbed calls, so a decision in a file (anyone's to write) never lets a
 * replayed call run.
 */
function recordedDecisions(events: readonly TypedTraceEvent[]): Map<string, ReplayDecision[]> {
  const byCall = new Map<string, ReplayDecision[]>();
  for (const event of events) {
    if (event.kind !== "approval.decided") continue;
    const decision = event.payload.decision === "approved" ? "approved" : "denied";
    const key = decisionKey(event.stepId, event.payload.tool);
    const reason = decision === "denied" ? { reason: event.payload.reason ?? "denied in the recording" } : {};
    byCall.set(key, [
      ...(byCall.get(key) ?? []),
      { decision, approver: `replay of ${event.payload.approver ?? "unknown"} (answered from the recording)`, ...reason },
    ]);
  }
  return byCall;
}

/** The calls of the replay that stubbed tools answered: each one's `tool.executed` ran the stub, not the tool. */
export function stubbedCallsOf(events: readonly TypedTraceEvent[], stubbedNames: ReadonlySet<string>): ReplayReport["stubbedCalls"] {
  return events.flatMap((event) =>
    isTraceEventOf(event, "tool.executed") && stubbedNames.has(event.payload.tool)
      ? [{ stepId: event.stepId, index: event.payload.index, tool: event.payload.tool }]
      : [],
  );
}

/** The artifacts a trace references, for comparing truncated outputs in full. */
export async function artifactsOf(runtime: ReinRuntime, events: readonly TypedTraceEvent[]) {
  const ids = events.flatMap(({ payload }) =>
    "artifactId" in payload && typeof payload.artifactId === "string" ? [payload.artifactId] : [],
  );
  const artifacts = await Promise.all(ids.map((id) => runtime.artifacts.get(id)));
  return artifacts.filter((artifact) => artifact !== null);
}
