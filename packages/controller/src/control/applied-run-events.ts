import { queuedRunEvents, type RunEvents } from "@rein/consumer";
import type { ControllerRuntime } from "@rein/runtime";
import type { EventApplier } from "./event-applier.ts";
import type { LocalHandoff } from "./local-handoff.ts";

/**
 * A trusted role's results applied where they are produced (issue 32):
 * through the controller's transition with compare-and-set, its effects
 * performed before the role's job completes. A run that other writers keep
 * advancing through every retry gets the event on the control queue
 * instead, where the controller retries it later; so does one the process
 * cannot apply for a reason a later try may not have (Redis failing mid-apply
 * is thrown: the role's job fails and is retried, and its event id keeps the
 * second application from counting twice). With `local`, the plan and
 * evaluate jobs a result asks for may run in this process (LocalHandoff).
 */
export function appliedRunEvents(
  applier: EventApplier,
  runtime: Pick<ControllerRuntime, "queues" | "trace">,
  local?: LocalHandoff,
): RunEvents {
  const queued = queuedRunEvents(runtime);
  return {
    apply: async (event, trace = []) => {
      if (!(await applier.apply(event, local, trace))) await queued.apply(event, trace);
    },
    start: (state, event, trace) => applier.start(state, event, trace, local),
    settle: (runId, eventId) => applier.settle(runId, eventId, local),
  };
}
