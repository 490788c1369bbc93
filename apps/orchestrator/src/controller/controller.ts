import { DelayedError, Worker, type WorkerOptions } from "bullmq";
import { ControlEvent, onFinalFailure, PacketSigner, QUEUE_NAMES, type ReinConfig, type ReinRuntime, ReinError, toQueueError } from "@rein/core";
import type { KeyObject } from "node:crypto";
import { performEffect } from "./effects.ts";
import { transition, type TransitionSettings } from "./transition.ts";
import { logTransition } from "./transition-log.ts";

export interface ControllerOptions {
  runtime: ReinRuntime;
  /** The Ed25519 key packets are signed with; only controllers hold it. */
  packetPrivateKey: KeyObject;
  concurrency?: number;
  /**
   * How fast a dead controller's event comes back: BullMQ moves a job whose
   * lock lapsed (`lockDuration`) back to wait on its next stalled check
   * (`stalledInterval`). @defaultValue BullMQ's, 30 s each
   */
  stalled?: Pick<WorkerOptions, "lockDuration" | "stalledInterval" | "maxStalledCount">;
  /** How long an event waits before another try when the run's lease is taken. @defaultValue 25 */
  leaseRetryMs?: number;
  now?: () => Date;
}

/**
 * The control queue's consumer. Per event: take the run's lease, load the
 * state, apply the pure transition, write it with compare-and-set, append
 * its trace, then perform its effects.
 */
export function startController(options: ControllerOptions): Worker {
  const { runtime } = options;
  const signer = new PacketSigner(options.packetPrivateKey);
  const now = options.now ?? (() => new Date());
  const leaseRetryMs = options.leaseRetryMs ?? 25;

  const worker = new Worker(
    QUEUE_NAMES.control,
    async (job, token) => {
      const parsed = ControlEvent.safeParse(job.data);
      if (!parsed.success) throw toQueueError(new ReinError("contract_invalid", `control event ${job.id} is malformed: ${parsed.error.message}`));
      const event = parsed.data;
      const lease = await runtime.leases.acquire(event.runId);
      if (!lease) {
        // Another holder is working on this run: try again shortly, never drop the event.
        await job.moveToDelayed(Date.now() + leaseRetryMs + Math.floor(Math.random() * leaseRetryMs), token);
        throw new DelayedError();
      }
      try {
        const state = await runtime.runs.get(event.runId);
        if (!state) throw toQueueError(new ReinError("not_found", `control event ${event.type} names run ${event.runId}, which does not exist`));
        if (state.appliedEvents.at(-1) === event.eventId) {
          // Redelivered after a crash between writing state and enqueueing: finish the job.
          for (const effect of state.outbox) await performEffect(effect, state, runtime, signer);
          return;
        }
        const next = transition(state, event, transitionSettings(runtime.config, now()));
        if (!next.applied) {
          await runtime.trace.appendMany(next.trace);
          return;
        }
        await runtime.runs.save(next.state, state.version, {
          events: next.trace.map((event) => runtime.trace.encode(event)),
          ttlSeconds: runtime.trace.ttlSeconds,
        });
        logTransition(runtime.logger, next.trace);
        for (const effect of next.effects) await performEffect(effect, next.state, runtime, signer);
      } catch (error) {
        if (error instanceof DelayedError) throw error;
        throw toQueueError(error);
      } finally {
        await lease.release();
      }
    },
    // A control event is never dropped: a job that stalls (its controller died) goes back to wait, many times if need be.
    { maxStalledCount: 10, ...options.stalled, connection: runtime.connection, prefix: runtime.keys.queuePrefix(), concurrency: options.concurrency ?? 8 },
  );
  worker.on("error", (error) => runtime.logger.error({ err: error }, "controller error"));
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

/** The transition's settings, from the same config the workers check packets against. */
export function transitionSettings(config: ReinConfig, now: Date): TransitionSettings {
  return {
    now,
    packetTtlMs: config.packets.ttlSeconds * 1000,
    approvalTtlMs: config.approvals.ttlSeconds * 1000,
    maxDepth: config.packets.maxDepth,
  };
}
