import type { StepWorkerRuntime } from "@rein/runtime";
import type { CallWatch } from "@rein/tools";

/**
 * What a step's tool calls show while they run: their start, progress and
 * end on the run's live channel, and each call that runs a while in the
 * run's calls in flight (for a view that opens mid-call). The turn's one
 * durable write still carries the call's events; a view keys both by step
 * and call id and shows the call once.
 */
export function liveCallWatch(
  live: StepWorkerRuntime["live"],
  step: { runId: string; stepId: string; attempt: number; deadline: number },
): CallWatch {
  const source = { runId: step.runId, stepId: step.stepId, role: "worker" as const };
  const at = (index: number) => ({ runId: step.runId, stepId: step.stepId, index });
  return {
    started: (call) => {
      live.publish({ type: "tool_started", ...source, ...call });
      live.calls.started({ ...call, runId: step.runId, stepId: step.stepId, attempt: step.attempt }, step.deadline);
    },
    progress: (call, update) => {
      live.publish({ type: "tool_progress", ...source, ...call, ...update });
      live.calls.progress(at(call.index), update);
    },
    finished: (call) => {
      live.calls.finished(at(call.index));
      live.publish({ type: "tool_finished", ...source, ...call });
    },
  };
}
