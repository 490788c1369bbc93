import type { KeyObject } from "node:crypto";
import type { RunState } from "@rein/contracts/run";
import type { ControlEvent, ControllerEffect } from "@rein/contracts/messages";
import { PacketSigner } from "@rein/signing";
import type { ControllerRuntime, ReinConfig, SaveOutcome } from "@rein/runtime";
import type { TraceEventInput } from "@rein/trace";
import { handedJobIds, performEffects } from "./effects.ts";
import type { LocalHandoff } from "./local-handoff.ts";
import { transition, type TransitionSettings } from "../transition/transition.ts";
import { logTransition } from "./transition-log.ts";
import { WrittenStates } from "./written-states.ts";

export interface EventApplierOptions {
  runtime: ControllerRuntime;
  /** The Ed25519 key packets are signed with: only trusted roles (control, plan, evaluate) hold it. */
  packetPrivateKey: KeyObject;
  /**
   * How many times an event is re-applied to a freshly loaded state when
   * another writer advanced the run first, before `apply` gives up. @defaultValue 5
   */
  conflictRetries?: number;
  /**
   * Characters of run state (its JSON) kept in memory for runs' next events
   * (WrittenStates); 0 keeps none, and every event reads its run. @defaultValue 8 MiB
   */
  keptStateChars?: number;
  now?: () => Date;
}

/** Applies control events to their runs; the one way run state changes. */
export interface EventApplier {
  /**
   * Load the state, apply the pure transition, write it with compare-and-set
   * (its trace in the same script), then perform its effects. True once the
   * event is applied, found applied before (its effects performed again) or
   * dropped; false when other writers kept advancing the run through every retry.
   * With `local`, the plan and evaluate jobs it asks for may run in this process (LocalHandoff).
   * `held`: encoded trace events of the run that come before the event's own (RunEvents.apply), written with
   * it; on false they are not written.
   */
  apply(event: ControlEvent, local?: LocalHandoff, held?: readonly string[]): Promise<boolean>;
  /**
   * Creates run `state` with `event` applied, in one write: `held` (the run's
   * first events, encoded) then the transition's own, then its effects (see RunEvents.start).
   */
  start(state: RunState, event: ControlEvent, held: readonly string[], local?: LocalHandoff): Promise<void>;
  /** Performs the effects of `eventId` again if it is the last event `runId` applied (see RunEvents.settle). */
  settle(runId: string, eventId: string, local?: LocalHandoff): Promise<void>;
}

/**
 * No lease: compare-and-set on `version` already lets only one writer
 * advance a run from a given version. A writer that loses the race loads
 * the newer state and applies its event to that (the transition is pure,
 * so re-applying it is safe); only the winner performs the effects of what
 * it wrote. The controller and the trusted roles that apply their own
 * results each hold one.
 *
 * The state a writer wrote is kept for the run's next event, which then
 * starts from it without a read: its compare-and-set on the kept version
 * lands only if no one wrote the run since, and a lost race answers with the
 * stored state in the same round trip, so a stale kept state costs no more
 * than the read it saved. Only the optimistic path (the event applies and
 * its write lands) uses a kept state: a redelivered or inapplicable event
 * is decided on a fresh read, as a kept state may be behind.
 */
export function createEventApplier(options: EventApplierOptions): EventApplier {
  const { runtime } = options;
  const signer = new PacketSigner(options.packetPrivateKey);
  const now = options.now ?? (() => new Date());
  const conflictRetries = options.conflictRetries ?? 5;
  const written = new WrittenStates(options.keptStateChars ?? 8 * 1024 * 1024);

  /**
   * Writes the transition's state and trace with compare-and-set on `read`'s version, keeping what it wrote,
   * and takes in it the leases of the `handed` jobs (see LocalHandoff.leaseFor).
   */
  const save = async (
    next: RunState,
    read: RunState,
    held: readonly string[],
    trace: readonly TraceEventInput[],
    handed: readonly HandedLease[],
  ): Promise<SaveOutcome> => {
    const lease = handed[0]?.lease;
    const outcome = await runtime.runs.saveOrRead(
      next,
      read.version,
      { events: [...held, ...trace.map((event) => runtime.trace.encode(event))], ttlSeconds: runtime.trace.ttlSeconds },
      lease && { keys: handed.map(({ jobId }) => runtime.keys.handoffLease(next.runId, jobId)), ...lease },
    );
    if (outcome.saved) written.keep(next, outcome.json);
    return outcome;
  };

  /**
   * What follows a landed write: its effects, and the run's entry in the
   * index of active runs the re-drive sweep reads. The index is another
   * cluster slot, so it is a command of its own; sent beside the effects,
   * it adds no round trip to the event. `previous`: the state the write
   * replaced, when known (see ActiveRuns.record).
   */
  const afterWrite = async (
    state: RunState,
    effects: readonly ControllerEffect[],
    event?: ControlEvent,
    local?: LocalHandoff,
    previous?: RunState,
    leased?: ReadonlyMap<string, boolean>,
  ): Promise<void> => {
    await Promise.all([
      runtime.runs.active.record(state, previous),
      performEffects(effects, { state, event, runtime, signer, local, leased }),
    ]);
  };

  /**
   * Applies the event to `state`; not done, with what the run holds now, when another writer advanced it first.
   * A `kept` state may be behind: only a write that lands is trusted from it, anything else is decided on a read.
   */
  const applyTo = async (
    state: RunState | null,
    event: ControlEvent,
    kept: boolean,
    held: readonly string[],
    local?: LocalHandoff,
  ): Promise<Applied> => {
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
      // Redelivered after a crash between writing state and enqueueing: finish the job. What this try recorded is its own.
      if (held.length > 0) await runtime.trace.appendEncoded(event.runId, held);
      await afterWrite(state, state.outbox, event, local);
      return { done: true };
    }
    const next = transition(state, event, transitionSettings(runtime.config, now()));
    if (!next.applied) {
      if (kept) return { done: false };
      const trace = [...held, ...next.trace.map((traced) => runtime.trace.encode(traced))];
      if (trace.length > 0) await runtime.trace.appendEncoded(event.runId, trace);
      return { done: true };
    }
    const handed = handedLeases(next.effects, local);
    const outcome = await save(next.state, state, held, next.trace, handed);
    if (!outcome.saved) return { done: false, current: outcome.current };
    logTransition(runtime.logger, next.trace);
    const leased = new Map(handed.map(({ jobId }, index) => [jobId, outcome.leased[index] === true]));
    await afterWrite(next.state, next.effects, event, local, state, leased);
    return { done: true };
  };

  return {
    apply: async (event, local, held = []) => {
      const kept = written.take(event.runId);
      let applied: Applied = kept ? await applyTo(kept, event, true, held, local) : { done: false };
      for (let attempt = 0; attempt <= conflictRetries && !applied.done; attempt += 1) {
        const current = applied.current === undefined ? await runtime.runs.get(event.runId) : applied.current;
        applied = await applyTo(current, event, false, held, local);
      }
      return applied.done;
    },
    start: async (state, event, held, local) => {
      const next = transition(state, event, transitionSettings(runtime.config, now()));
      const created = next.applied ? next.state : state;
      await runtime.runs.create(created, {
        events: [...held, ...next.trace.map((traced) => runtime.trace.encode(traced))],
        ttlSeconds: runtime.trace.ttlSeconds,
      });
      if (!next.applied) return;
      logTransition(runtime.logger, next.trace);
      // `state` was indexed among the active runs as it was created (RunStore.create): not again in the same second.
      await afterWrite(next.state, next.effects, event, local, state);
    },
    settle: async (runId, eventId, local) => {
      const state = await runtime.runs.get(runId);
      if (state?.appliedEvents.at(-1) !== eventId) return;
      // Only a step's evaluation needs its event (the step's result), and a trusted role's result enqueues none.
      await afterWrite(state, state.outbox, undefined, local);
    },
  };
}

/** A job a write asks for that this process would run in place, with the lease the write takes for it. */
type HandedLease = { jobId: string; lease: { holder: string; ttlMs: number } };

/** The jobs `effects` ask for that `local` would run here now: their leases are taken in the write that asks for them. */
function handedLeases(effects: readonly ControllerEffect[], local: LocalHandoff | undefined): HandedLease[] {
  if (!local) return [];
  return handedJobIds(effects).flatMap(({ kind, jobId }) => {
    const lease = local.leaseFor(kind);
    return lease ? [{ jobId, lease }] : [];
  });
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
    buildId: config.buildId,
  };
}
