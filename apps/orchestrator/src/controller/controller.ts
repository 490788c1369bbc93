import { DelayedError, Worker } from "bullmq";
import { ControlEvent, onFinalFailure, PacketSigner, QUEUE_NAMES, type ReinConfig, type ReinRuntime, ReinError, type RunState, toQueueError, type TraceEventInput, type WorkerTiming, workerOptionsOf } from "@rein/core";
import type { KeyObject } from "node:crypto";
import { performEffects } from "./effects.ts";
import { transition, type TransitionSettings } from "./transition.ts";
import { logTransition } from "./transition-log.ts";

export interface ControllerOptions {
  runtime: ReinRuntime;
  /** The Ed25519 key packets are signed with; only controllers hold it. */
  packetPrivateKey: KeyObject;
  concurrency?: number;
  /** Lock and stall settings over config `queues` (`rein serve --lock-ms`). */
  stalled?: WorkerTiming;
  /**
   * How many times an event is re-applied to a freshly loaded state when
   * another controller wrote the run first, before it waits and tries later. @defaultValue 5
   */
  conflictRetries?: number;
  /** How long an event waits before another try after that many conflicts in a row. @defaultValue 25 */
  conflictRetryMs?: number;
  now?: () => Date;
}

/**
 * The control queue's consumer. Per event: load the state, apply the pure
 * transition, write it with compare-and-set (which appends its trace in the
 * same script), then perform its effects.
 *
 * No lease: compare-and-set on `version` already lets only one writer
 * advance a run from a given version. A controller that loses the race
 * loads the newer state and applies its event to that (the transition is
 * pure, so re-applying it is safe); only the winner performs the effects
 * of what it wrote. A lease would add two round trips to every event and
 * make an event that arrives during another's cycle wait out a timer.
 */
export function startController(options: ControllerOptions): Worker {
  const { runtime } = options;
  const signer = new PacketSigner(options.packetPrivateKey);
  const now = options.now ?? (() => new Date());
  const conflictRetries = options.conflictRetries ?? 5;
  const conflictRetryMs = options.conflictRetryMs ?? 25;

  /** Applies the event once; false when another writer advanced the run first. */
  const applyOnce = async (event: ControlEvent): Promise<boolean> => {
    const state = await runtime.runs.get(event.runId);
    if (!state) {
      // Its run was pruned (or never existed): retrying cannot help, and a trace written now would outlive every run key.
      runtime.logger.warn({ runId: event.runId, event: event.type, eventId: event.eventId }, "control event dropped: its run does not exist");
      return true;
    }
    if (state.appliedEvents.at(-1) === event.eventId) {
      // Redelivered after a crash between writing state and enqueueing: finish the job.
      await performEffects(state.outbox, { state, event, runtime, signer });
      return true;
    }
    const next = transition(state, event, transitionSettings(runtime.config, now()));
    if (!next.applied) {
      await runtime.trace.appendMany(next.trace);
      return true;
    }
    if (!(await saved(runtime, next.state, state, next.trace))) return false;
    logTransition(runtime.logger, next.trace);
    await performEffects(next.effects, { state: next.state, event, runtime, signer });
    return true;
  };

  const worker = new Worker(
    QUEUE_NAMES.control,
    async (job, token) => {
      const parsed = ControlEvent.safeParse(job.data);
      if (!parsed.success) throw toQueueError(new ReinError("contract_invalid", `control event ${job.id} is malformed: ${parsed.error.message}`));
      try {
        for (let attempt = 0; attempt <= conflictRetries; attempt += 1) {
          if (await applyOnce(parsed.data)) return;
        }
      } catch (error) {
        throw toQueueError(error);
      }
      // A run this contended is left to settle: the event comes back shortly, without spending one of its attempts.
      await job.moveToDelayed(Date.now() + conflictRetryMs + Math.floor(Math.random() * conflictRetryMs), token);
      throw new DelayedError();
    },
    workerOptionsOf(runtime, "control", options.concurrency ?? 8, options.stalled),
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

/** Writes the transition's state and trace with compare-and-set; false when the run moved on since `read`. */
async function saved(runtime: ReinRuntime, state: RunState, read: RunState, trace: readonly TraceEventInput[]): Promise<boolean> {
  try {
    await runtime.runs.save(state, read.version, { events: trace.map((event) => runtime.trace.encode(event)), ttlSeconds: runtime.trace.ttlSeconds });
    return true;
  } catch (error) {
    if (ReinError.hasCode(error, "version_conflict")) return false;
    throw error;
  }
}

/** The transition's settings, from the same config the workers check packets against. */
export function transitionSettings(config: ReinConfig, now: Date): TransitionSettings {
  return {
    now,
    packetTtlMs: config.packets.ttlSeconds * 1000,
    approvalTtlMs: config.approvals.ttlSeconds * 1000,
    maxDepth: config.packets.maxDepth,
    lostStepRedispatches: config.queues.lostStepRedispatches,
  };
}
