import { errorMessage } from "@rein/contracts";
import { isTerminal, type RunState, type TraceEvent } from "@rein/contracts/run";
import type { CallInFlight } from "@rein/runtime";
import { type TypedTraceEvent, typedTraceEvent } from "@rein/trace";
import type { TraceBundle } from "../../trace-bundle.ts";
import { presentedToModel } from "../call-view.ts";
import { answerView } from "./answer-evidence.ts";
import { CallRecordsFold, callKey } from "./call-records.ts";
import { PlanHistoryFold } from "./plan-history.ts";
import { RunTimelineFold } from "./run-timeline.ts";
import { RunUsageFold } from "./run-usage.ts";
import type { CallInFlightView, RunView } from "./run-view-model.ts";
import { StepGraphFold } from "./step-graph.ts";

/**
 * Builds the run page's view model from a run's bundle in one pass over its
 * events, each read through the trace catalogue (an event it cannot read is
 * listed in `unreadable`, not guessed at). `inFlight`: the calls workers
 * run now (`live.calls`), shown until the trace holds them.
 */
export function buildRunView(
  bundle: Pick<TraceBundle, "runId" | "state" | "events" | "blobs">,
  inFlight: readonly CallInFlight[] = [],
): RunView {
  const plan = new PlanHistoryFold();
  const graph = new StepGraphFold();
  const calls = new CallRecordsFold();
  const timeline = new RunTimelineFold();
  const usage = new RunUsageFold();
  const unreadable: RunView["unreadable"] = [];
  let goal: string | null = null;
  for (const raw of bundle.events) {
    const event = readable(raw, unreadable);
    if (!event) continue;
    if (event.kind === "run.submitted") goal = event.payload.goal;
    plan.add(event);
    graph.add(event);
    calls.add(event);
    timeline.add(event);
    usage.add(event);
  }
  const callViews = calls
    .result()
    .map((call) => ({ ...call, presented: presentedToModel(bundle, call.stepId, call.callId, call.seq) ?? null }));
  const callsByKey = new Map(callViews.map((call) => [call.key, call]));
  const stepUsage = new Map(usage.stepLines().map((line) => [line.name, line.usage]));
  const steps = graph.result();
  const state: RunState | null = bundle.state;
  return {
    runId: bundle.runId,
    goal: state?.goal.text ?? goal ?? "",
    status: state?.status ?? null,
    stopReason: state?.stopReason ?? null,
    startedAt: bundle.events[0]?.ts ?? null,
    lastEventAt: bundle.events.at(-1)?.ts ?? null,
    plan: plan.result(),
    graph: { ...steps, steps: steps.steps.map((node) => ({ ...node, usage: stepUsage.get(node.stepId) ?? node.usage })) },
    timeline: timeline.timeline().map((entry) => {
      const call = entry.callKey === null ? undefined : callsByKey.get(entry.callKey);
      return call ? { ...entry, label: `#${call.index} ${call.tool} → ${call.status}`, failed: call.failed } : entry;
    }),
    calls: callViews,
    inFlight: state && isTerminal(state.status) ? [] : inFlightViews(inFlight, callsByKey),
    verdicts: timeline.verdictList(),
    usage: {
      total: usage.totalUsage(),
      byStep: usage.stepLines(),
      byRole: usage.roleLines(),
      budget: state?.goal.budget ?? usage.budget,
      spent: state?.spent ?? null,
      unpriced: usage.unpriced,
    },
    answer: answerView(state, callViews),
    unreadable,
  };
}

/** The calls in flight the trace does not hold yet: a call is durable only once its turn, after it, was written. */
function inFlightViews(calls: readonly CallInFlight[], durable: ReadonlyMap<string, unknown>): CallInFlightView[] {
  return calls
    .map((call) => ({
      key: callKey(call.stepId, call.callId, call.index),
      stepId: call.stepId,
      callId: call.callId,
      tool: call.tool,
      index: call.index,
      startedAt: call.startedAt,
      input: call.args ?? null,
      progress: call.progress
        ? { progress: call.progress.progress, total: call.progress.total ?? null, message: call.progress.message ?? null }
        : null,
    }))
    .filter((call) => !durable.has(call.key));
}

function readable(event: TraceEvent, unreadable: RunView["unreadable"]): TypedTraceEvent | undefined {
  try {
    return typedTraceEvent(event);
  } catch (error) {
    unreadable.push({ seq: event.seq, kind: event.kind, problem: errorMessage(error) });
    return undefined;
  }
}
