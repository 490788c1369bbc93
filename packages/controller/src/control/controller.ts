import { DelayedError, Worker } from "bullmq";
import { ReinError } from "@rein/contracts";
import { ControlEvent } from "@rein/contracts/messages";
import { QUEUE_NAMES, type ControllerRuntime } from "@rein/runtime";
import { DEFAULT_CONCURRENCY, onFinalFailure, toQueueError, type WorkerTiming, workerOptionsOf } from "@rein/consumer";
import type { KeyObject } from "node:crypto";
import { createEventApplier, type EventApplier } from "./event-applier.ts";

export { transitionSettings } from "./event-applier.ts";

export interface ControllerOptions {
  runtime: ControllerRuntime;
  /** The Ed25519 key packets are signed with; only trusted roles hold it. */
  packetPrivateKey: KeyObject;
  concurrency?: number;
  /** The control queue's shard it takes from (config `queues.shards`). @defaultValue 0 */
  shard?: number;
  /** Lock and stall settings over config `queues` (`rein serve --lock-ms`). */
  stalled?: WorkerTiming;
  /**
   * How many times an event is re-applied to a freshly loaded state when
   * another controller wrote the run first, before it waits and tries later. @defaultValue 5
   */
  conflictRetries?: number;
  /** How long an event waits before another try after that many conflicts in a row. @defaultValue 25 */
  conflictRetryMs?: number;
  /**
   * Characters of run state (its JSON) kept in memory for runs' next events
   * (WrittenStates); 0 keeps none, and every event reads its run. @defaultValue 8 MiB
   */
  keptStateChars?: number;
  now?: () => Date;
  /** Applies the events; made from the options above when absent, shared with the roles of this process when given. */
  applier?: EventApplier;
}

/**
 * The control queue's consumer. Per event: load the state, apply the pure
 * transition, write it with compare-and-set (which appends its trace in the
 * same script), then perform its effects (EventApplier). A run so contended
 * that every retry lost the race is left to settle: its event comes back
 * shortly, without spending one of its attempts.
 */
export function startController(options: ControllerOptions): Worker {
  const { runtime } = options;
  const conflictRetryMs = options.conflictRetryMs ?? 25;
  const applier = options.applier ?? createEventApplier(options);

  const worker = new Worker(
    QUEUE_NAMES.control,
    async (job, token) => {
      const parsed = ControlEvent.safeParse(job.data);
      if (!parsed.success)
        throw toQueueError(new ReinError("contract_invalid", `control event ${job.id} is malformed: ${parsed.error.message}`));
      try {
        if (await applier.apply(parsed.data)) return;
      } catch (error) {
        throw toQueueError(error);
      }
      await job.moveToDelayed(Date.now() + conflictRetryMs + Math.floor(Math.random() * conflictRetryMs), token);
      throw new DelayedError();
    },
    workerOptionsOf(runtime, "control", options.concurrency ?? DEFAULT_CONCURRENCY.control, options.stalled, options.shard),
  );
  runtime.redisErrors.watch(worker, "controller");
  onFinalFailure(worker, async (job, reason) => {
    const parsed = ControlEvent.safeParse(job.data);
    // A malformed event names no run to fail; a failed `event.failed` is not reported again, or one broken run would loop.
    if (!parsed.success || parsed.data.type === "event.failed") {
      runtime.logger.error({ jobId: job.id, reason }, "control event failed for good");
      return;
    }
    await runtime.queues.sendControl({
      type: "event.failed",
      eventId: `gave-up-${job.id}`,
      runId: parsed.data.runId,
      failedEventId: parsed.data.eventId,
      failedEventType: parsed.data.type,
      reason: `failed for good after ${job.attemptsMade} attempt(s): ${reason}`,
    });
  });
  return worker;
}
