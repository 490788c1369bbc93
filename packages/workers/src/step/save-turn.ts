import type { StepContext } from "./step-context.ts";

/**
 * The step's one durable write per turn: the turn's trace events and prompt
 * blobs, the checkpoint's new items and the read-cache entries of its calls, in one round trip, atomically, and
 * only while the step is still this worker's (else `lock_lost`, nothing written).
 * A crash before it loses the turn, which the next worker redoes from the
 * previous checkpoint under the same idempotency keys; a crash after it
 * loses nothing.
 */
export async function saveTurn(step: StepContext): Promise<void> {
  const { loop, deps, body } = step;
  step.saved = await deps.checkpoints.saveTurn({
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
}

/**
 * Writes what the step traced since its last turn, without a checkpoint:
 * when it ends (its TTLs refreshed from there) or is cut off. Made only while
 * the step is still this worker's, like every write of the step.
 */
export async function writeTrace(step: StepContext): Promise<void> {
  const { body, deps } = step;
  await deps.checkpoints.saveTurn({ runId: body.runId, stepId: body.stepId, trace: step.trace.take(), cache: step.cache?.take(), ownerToken: deps.ownerToken, refreshTtl: true });
}
