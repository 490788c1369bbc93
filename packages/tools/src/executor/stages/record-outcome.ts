import { sha256 } from "@rein/contracts";
import type { RecordedFailure, RecordedResult } from "@rein/contracts/calls";
import { type CallStage, need } from "../call-in-progress.ts";
import { isEmptyResult } from "../empty-result.ts";
import { recordOwner } from "../recorded-calls.ts";
import { isCacheable } from "./run-call.ts";

/**
 * A fresh output becomes the result every later stage and every re-run
 * reads: rendered, hashed, and cached when it is a cacheable read. A call
 * that wrote an intent replaces it with its outcome, a failure included, so
 * a re-run replays how it ended instead of doing it again. A worker whose
 * step was taken over meanwhile records nothing (`lock_lost`): its intent
 * stays, and the step's new owner reports the outcome unknown.
 */
export const recordOutcome: CallStage = async (state) => {
  const tool = need(state, "tool");
  const execution = need(state, "execution");
  const { deps, trace, identity, intent, idempotencyKey } = state;
  if (execution.kind === "failed") {
    if (intent && !execution.replayed) {
      const { status, error, failure, attempts } = execution;
      const failed: RecordedFailure = {
        schemaVersion: 1,
        kind: "failure",
        fingerprint: identity.fingerprint,
        status,
        error,
        failure,
        attempts,
        observedAt: new Date(deps.now()).toISOString(),
      };
      await deps.idempotency?.finish(idempotencyKey, intent, failed, recordOwner(state.context));
    }
    return undefined;
  }
  if (execution.kind !== "output") return undefined;
  const rendered = tool.render(execution.output);
  const images = tool.images?.(execution.output) ?? [];
  let result: RecordedResult = {
    schemaVersion: 1,
    fingerprint: identity.fingerprint,
    rendered,
    rawOutputHash: sha256(rendered),
    empty: images.length === 0 && isEmptyResult(execution.output, rendered),
    ...(images.length > 0 ? { images } : {}),
    observedAt: new Date(deps.now()).toISOString(),
  };
  // The rendered output itself, so replay can diff against it; a larger one is in the truncation artifact.
  const output = Buffer.byteLength(rendered) <= deps.config.observations.maxBytes ? rendered : undefined;
  await trace.emit(
    "tool.executed",
    { status: "ok", attempts: execution.attempts, empty: result.empty, output, ...tool.traceFields?.(execution.output) },
    { durationMs: execution.durationMs, outputHash: result.rawOutputHash },
  );
  let source: "executed" | "replayed" = "executed";
  if (intent && deps.idempotency) {
    const outcome = await deps.idempotency.finish(idempotencyKey, intent, { ...result, kind: "result" }, recordOwner(state.context));
    // Another run of this call recorded first: its result is the one that counts.
    if (
      !outcome.recorded &&
      outcome.existing?.kind !== "intent" &&
      outcome.existing?.kind !== "failure" &&
      outcome.existing?.fingerprint === identity.fingerprint
    ) {
      result = outcome.existing;
      source = "replayed";
    }
  }
  if (isCacheable(tool, deps) && source === "executed") await (state.context.cache ?? deps.cache)?.put(state.context.runId, result);
  state.execution = { kind: "result", result, source, attempts: execution.attempts, durationMs: execution.durationMs };
  return undefined;
};
