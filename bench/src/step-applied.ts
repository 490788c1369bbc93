import type { ReinRuntime } from "@rein/runtime";
import { resultEventIds } from "@rein/runtime";

/**
 * Instrumentation only: calls `onApplied(runId)` once a write through
 * `runtime`'s run store lands a step's result (`step.finished`, whichever
 * role with the packet key applied it), before that result's effects.
 */
export function onStepResultApplied(runtime: ReinRuntime, onApplied: (runId: string) => void): void {
  const saveOrRead = runtime.runs.saveOrRead.bind(runtime.runs);
  const finished = resultEventIds.stepFinished("");
  runtime.runs.saveOrRead = async (state, expectedVersion, trace) => {
    const outcome = await saveOrRead(state, expectedVersion, trace);
    if (outcome.saved && state.appliedEvents.at(-1)?.startsWith(finished)) onApplied(state.runId);
    return outcome;
  };
}
