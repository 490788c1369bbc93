import type { KeyObject } from "node:crypto";
import type { RunEvents } from "@rein/consumer";
import type { ControllerRuntime } from "@rein/runtime";
import { appliedRunEvents } from "../control/applied-run-events.ts";
import { createEventApplier } from "../control/event-applier.ts";

/**
 * Where a trusted process with the packet key (`rein serve`'s API, `rein
 * run`) sends a new run's `goal.submitted` (submitGoal's `events`): applied
 * in place through the transition, as the controller would, its first plan
 * queued. A run so saves a control job and a hop before its first plan.
 * Nothing is handed over in process: intake answers once the plan is
 * queued, not once it is made.
 */
export function intakeEvents(runtime: ControllerRuntime, packetPrivateKey: KeyObject): RunEvents {
  // It applies one event per run and never the run's next: a kept state would only hold memory.
  return appliedRunEvents(createEventApplier({ runtime, packetPrivateKey, keptStateChars: 0 }), runtime);
}
