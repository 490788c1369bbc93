import { DelayedError, Worker } from "bullmq";
import { ReinError } from "@rein/contracts";
import type { RunState } from "@rein/contracts/run";
import { ControlEvent, type ControllerEffect } from "@rein/contracts/messages";
import { PacketSigner } from "@rein/signing";
import { QUEUE_NAMES, type ControllerRuntime, type ReinConfig, type SaveOutcome } from "@rein/runtime";
import { onFinalFailure, toQueueError, type WorkerTiming, workerOptionsOf } from "@rein/consumer";
import type { TraceEventInput } from "@rein/trace";
import type { KeyObject } from "node:crypto";
import { performEffects } from "./effects.ts";
import { transition, type TransitionSettings } from "../transition/transition.ts";
import { logTransition } from "./transition-log.ts";
import { WrittenStates } from "./written-states.ts";

export interface ControllerOptions {
  runtime: ControllerRuntime;
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
  /**
   * Characters of run state (its JSON) kept in memory for runs' next events
   * (WrittenStates); 0 keeps none, and every event reads its run. @defaultValue 8 MiB
   */
  keptStateChars?: number;
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
 *
 * The state a controller wrote is kept for the run's next event, which then
 * starts from it without a read: its compare-and-set on the kept version
 * lands only if no one wrote the run since, and a lost race answers with the
 * stored state in the same round trip, so a stale kept state costs no more
 * than the read it saved. Only the optimistic path (the event applies and
 * its write lands) uses a kept state: a redelivered or inapplicable event
 * is decided on a fresh read, as a kept state may be behind.
 */
export function startController(options: ControllerOptions): Worker {
  const { runtime } = options;
  const signer = new PacketSigner(options.packetPrivateKey);
  const now = options.now ?? (() => new Date());
  const conflictRetries = options.conflictRetries ?? 5;
  const conflictRetryMs = options.conflictRetryMs ?? 25;

  const written = new WrittenStates(options.keptStateChars ?? 8 * 1024 * 1024);

  /** Writes the transition's state and trace with compare-and-set on `read`'s version, keeping what it wrote. */
  const save = async (next: RunState, read: RunState, trace: readonly TraceEventInput[]): Promise<SaveOutcome> => {
    const outcome = await runtime.runs.saveOrRead(next, read.version, {
      events: trace.map((event) => runtime.trace.encode(event)),
      ttlSeconds: runtime.trace.ttlSeconds,
    });
    if (outcome.saved) written.keep(next, outcome.json);
    return outcome;
  };

  /**
   * What follows a landed write: its effects, and the run's entry in the
   * index of active runs the re-drive sweep reads. The index is another
   * cluster slot, so it is a command of its own; sent beside the effects,
   * it adds no round trip to the event.
   */
  const afterWrite = async (state: RunState, effects: readonly ControllerEffect[], event: ControlEvent): Promise<void> => {
    await Promise.all([runtime.runs.active.record(state), performEffects(effects, { state, event, runtime, signer })]);
  };

  /**
   * Applies the event to `state`; not done, with what the run holds now, when another writer advanced it first.
   * A `kept` state may be behind: only a write that lands is trusted from it, anything else is decided on a read.
   */
  const applyTo = async (state: RunState | null, event: ControlEvent, kept = false): Promise<Applied> => {
    if (!state) {
      // Its run was pruned (or never existed): retrying cannot help, and a trace written now would outlive every run key.
      runtime.logger.warn(
        { runId: event.runId, event: event.type, eventId: event.eventId },
        "control event dropped: its run does not exist",
      );
      return { done: true };
    }
    if (state.appliedEvents.at(-1) === event.eventId) {
      if (kept) return { done: false };
      // Redelivered after a crash between writing state and enqueueing: finish the job.
      await afterWrite(state, state.outbox, event);
      return { done: true };
    }
    const next = transition(state, event, transitionSettings(runtime.config, now()));
    if (!next.applied) {
      if (kept) return { done: false };
      await runtime.trace.appendMany(next.trace);
      return { done: true };
    }
    const outcome = await save(next.state, state, next.trace);
    if (!outcome.saved) return { done: false, current: outcome.current };
    logTransition(runtime.logger, next.trace);
    await afterWrite(next.state, next.effects, event);
    return { done: true };
  };

  const worker = new Worker(
    QUEUE_NAMES.control,
    async (job, token) => {
      const parsed = ControlEvent.safeParse(job.data);
      if (!parsed.success)
        throw toQueueError(new ReinError("contract_invalid", `control event ${job.id} is malformed: ${parsed.error.message}`));
      const event = parsed.data;
      try {
        const kept = written.take(event.runId);
        let applied: Applied = kept ? await applyTo(kept, event, true) : { done: false };
        for (let attempt = 0; attempt <= conflictRetries && !applied.done; attempt += 1) {
          applied = await applyTo(applied.current === undefined ? await runtime.runs.get(event.runId) : applied.current, event);
        }
        if (applied.done) return;
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

/** An event's application: done, or not yet with what the run holds now (undefined: unknown, read it; null: gone). */
type Applied = { done: true } | { done: false; current?: RunState | null };

/** The transition's settings, from the same config the workers check packets against. */
export function transitionSettings(config: ReinConfig, now: Date): TransitionSettings {
  return {
    now,
    packetTtlMs: config.packets.ttlSeconds * 1000,
    maxParallel: config.packets.maxParallel,
    approvalTtlMs: config.approvals.ttlSeconds * 1000,
    maxDepth: config.packets.maxDepth,
    lostStepRedispatches: config.queues.lostStepRedispatches,
    resendsPerJob: config.redrive.resendsPerJob,
  };
}
