import type { Approval } from "@rein/contracts/run";
import type { ApprovalStore, ReinRuntime } from "@rein/runtime";
import { type CallTraceEvent, findTraceEvent, isCallTraceEvent, type TraceEventOf, type TypedTraceEvent } from "@rein/trace";
import { describeCall } from "../trace/views/call-view.ts";
import { clip } from "../trace/views/event-fields.ts";

/** Longest output of one evidence call the queue carries; the whole is at `GET /runs/:id/calls/:callId`. */
const EVIDENCE_OUTPUT_CHARS = 2_000;
/** The step's latest calls shown as evidence; earlier ones are counted, not carried. */
const EVIDENCE_CALLS = 10;

/**
 * A call the run made before the step asked: what had been found out when
 * the action was proposed (a step builds on what earlier steps found, so
 * their calls count too).
 */
export interface EvidenceCall {
  stepId: string | null;
  callId: string;
  tool: string;
  input: unknown;
  status: string;
  /** The output, cut to EVIDENCE_OUTPUT_CHARS; null when the call was not executed. */
  output: string | null;
  outputTruncated: boolean;
}

/** A pending approval with what a person needs to decide it. */
export interface QueuedApproval extends Approval {
  goal: string | null;
  /** The policy rule that asked for a person, and the reason it gave; null when the trace no longer holds the request. */
  rule: string | null;
  ruleReason: string | null;
  /** The tool call that waits. */
  callId: string | null;
  evidence: EvidenceCall[];
  /** Calls of the run before the ones in `evidence`. */
  earlierCalls: number;
}

/**
 * The approvals queue across runs: every pending approval with its run's
 * goal, the rule that required it (from the trace's `approval.requested`),
 * and the latest calls the run had made before it asked. Each run's trace is
 * read once, however many of its approvals wait.
 */
export async function approvalQueue(runtime: ReinRuntime, approvals: ApprovalStore): Promise<QueuedApproval[]> {
  const pending = await approvals.list({ status: "pending" });
  const runIds = [...new Set(pending.map((approval) => approval.runId))];
  const runs = new Map(
    await Promise.all(
      runIds.map(async (runId) => {
        const [state, events] = await Promise.all([runtime.runs.get(runId).catch(() => null), runtime.trace.read(runId)]);
        return [runId, { goal: state?.goal.text ?? null, events }] as const;
      }),
    ),
  );
  return pending.map((approval) => {
    const run = runs.get(approval.runId);
    return withContext(approval, run?.goal ?? null, run?.events ?? []);
  });
}

function withContext(approval: Approval, goal: string | null, events: readonly TypedTraceEvent[]): QueuedApproval {
  const requested = events.find(
    (event): event is TraceEventOf<"approval.requested" | "approval.reused"> =>
      (event.kind === "approval.requested" || event.kind === "approval.reused") && event.payload.approvalId === approval.approvalId,
  );
  const callId = requested ? requested.payload.callId : null;
  const decided = requested
    ? findTraceEvent(
        events,
        "permission.decided",
        (event) => event.stepId === requested.stepId && event.payload.callId === callId && event.seq <= requested.seq,
      )
    : undefined;
  const earlier = requested ? callsBefore(events, requested) : [];
  const shown = earlier.slice(-EVIDENCE_CALLS);
  const bundle = { runId: approval.runId, state: null, events: [...events], blobs: {}, artifacts: [] };
  return {
    ...approval,
    goal,
    rule: requested ? requested.payload.rule : null,
    ruleReason: decided ? decided.payload.reason : null,
    callId,
    evidence: shown.map((called) => evidenceOf(bundle, called)),
    earlierCalls: earlier.length - shown.length,
  };
}

/** The run's `tool.called` events before the request, other than the waiting call itself. */
function callsBefore(events: readonly TypedTraceEvent[], requested: CallTraceEvent): TraceEventOf<"tool.called">[] {
  const isWaitingCall = (event: CallTraceEvent) =>
    event.stepId === requested.stepId &&
    event.payload.callId === requested.payload.callId &&
    event.payload.index === requested.payload.index;
  const called = events.filter(
    (event): event is TraceEventOf<"tool.called"> => isCallTraceEvent(event) && event.kind === "tool.called" && event.seq < requested.seq,
  );
  const waiting = called.findLastIndex(isWaitingCall);
  return called.filter((_, i) => i !== waiting);
}

function evidenceOf(bundle: Parameters<typeof describeCall>[0], called: TraceEventOf<"tool.called">): EvidenceCall {
  const callId = called.payload.callId;
  const use = describeCall(bundle, callId).find(
    (candidate) => candidate.stepId === called.stepId && candidate.index === called.payload.index,
  );
  const output = use?.output ?? null;
  return {
    stepId: called.stepId,
    callId,
    tool: called.payload.tool,
    input: called.payload.args ?? null,
    status: use?.status ?? "no result",
    output: output === null ? null : clip(output, EVIDENCE_OUTPUT_CHARS),
    outputTruncated: output !== null && output.length > EVIDENCE_OUTPUT_CHARS,
  };
}
