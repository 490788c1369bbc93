import type { ControlEvent } from "@rein/contracts/messages";
import type { RunState } from "@rein/contracts/run";
import type { ReinQueues, TraceLog } from "@rein/runtime";

/**
 * Where a trusted role (plan, evaluate) puts its result. By default it is
 * sent to the control queue as a control event; a process that may apply
 * it (the controller package wires one where the packet-signing key is
 * held) applies it through the same pure transition with compare-and-set,
 * and performs its effects, before the role's job completes: one queue job
 * fewer per result, and no wait for a controller to take it.
 */
export interface RunEvents {
  /**
   * Applies `event` to its run, or hands it to whoever will; resolves once it is durable either way.
   * `trace`: events of the run the job recorded before its result (TraceHold.carry, encoded), written before the event's own.
   */
  apply(event: ControlEvent, trace?: readonly string[]): Promise<void>;
  /**
   * Creates run `state` with `event` (its first) already applied, in one
   * write; `trace`, the run's first events, is written with it. Present
   * only where events are applied in place: elsewhere the run is created
   * and the event sent as `apply` sends it.
   */
  start?(state: RunState, event: ControlEvent, trace: readonly string[]): Promise<void>;
  /**
   * For a job intake dropped because its run moved on: if what moved it was
   * this job's own result (event `eventId`, the last one its run applied),
   * performs that result's effects again, as a controller does for a
   * redelivered event. A process that died between applying a result and
   * performing its effects leaves them to this. Absent where results go to
   * the control queue: the controller does it there.
   */
  settle?(runId: string, eventId: string): Promise<void>;
}

/** Results as control events on the control queue, for the controller to apply: the step worker's only way, and any role's without the key. */
export function queuedRunEvents(runtime: { queues: Pick<ReinQueues, "sendControl">; trace: Pick<TraceLog, "appendEncoded"> }): RunEvents {
  return {
    apply: async (event, trace = []) => {
      if (trace.length > 0) await runtime.trace.appendEncoded(event.runId, trace);
      await runtime.queues.sendControl(event);
    },
  };
}
