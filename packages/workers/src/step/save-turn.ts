import type { StepContext } from "./step-context.ts";

/**
 * Starts the step's one durable write for the turn: its trace events and
 * prompt blobs, the checkpoint's new items and the read-cache entries of its
 * calls, in one round trip, atomically, and only while the step is still
 * this worker's (else `lock_lost`, nothing written). What it writes is taken
 * now; the step does not wait for it here but in `settleTurnWrite`, so the
 * next model call is prepared and made while the write is in flight.
 *
 * The rule that keeps this safe: the step waits for the write before it uses
 * the next call's reply, before it writes again and before it reports a
 * result. So no tool runs, and no effect happens, before the turn before it
 * is durable, and nothing of a later turn lands without it. A crash loses
 * at most the turn in flight and the model call after it, which the next
 * worker redoes from the last checkpoint under the same idempotency keys; a
 * crash after the write loses nothing.
 */
export function startTurnWrite(step: StepContext): void {
  const { loop, deps, body } = step;
  const writing = deps.checkpoints.saveTurn({
    runId: body.runId,
    stepId: body.stepId,
    checkpoint: { ...loop, schemaVersion: 1, savedAt: new Date(step.now()).toISOString() },
    since: step.saved,
    trace: step.trace.take(),
    cache: step.cache?.take(),
    ownerToken: deps.ownerToken,
    refreshTtl: !step.ttlSet,
  });
  step.ttlSet = true;
  step.writing = writing.then((saved) => {
    step.saved = saved;
  });
  // Awaited in settleTurnWrite; until then a refusal must not surface as an unhandled rejection.
  step.writing.catch(() => undefined);
}

/**
 * Waits for the turn write in flight, if any. A refused write (`lock_lost`,
 * `run_ended`) is thrown, and what the step traced since it was started (the
 * model call made meanwhile) is dropped: it built on a turn that was not
 * saved, so it is not the run's history.
 */
export async function settleTurnWrite(step: StepContext): Promise<void> {
  const { writing } = step;
  if (!writing) return;
  step.writing = undefined;
  try {
    await writing;
  } catch (error) {
    step.trace.take();
    step.cache?.take();
    throw error;
  }
}

/** Writes the turn and waits for it: where nothing can overlap the write (a resumed step's answered calls). */
export async function saveTurn(step: StepContext): Promise<void> {
  startTurnWrite(step);
  await settleTurnWrite(step);
}

/**
 * Writes what the step traced since its last turn, without a checkpoint:
 * when it ends (its TTLs refreshed from there) or is cut off. Made only while
 * the step is still this worker's, like every write of the step.
 */
export async function writeTrace(step: StepContext): Promise<void> {
  const { body, deps } = step;
  await deps.checkpoints.saveTurn({
    runId: body.runId,
    stepId: body.stepId,
    trace: step.trace.take(),
    cache: step.cache?.take(),
    ownerToken: deps.ownerToken,
    refreshTtl: true,
  });
}
