import type { ReinRuntime } from "@rein/runtime";
import type { TraceEventOf, TypedTraceEvent } from "@rein/trace";

const keyOf = (event: TraceEventOf<"observation.made">) => `${event.stepId ?? "-"}|${event.payload.callId}|${event.payload.index}`;

function observationIds(events: readonly TypedTraceEvent[]): Map<string, string> {
  const ids = new Map<string, string>();
  for (const event of events) {
    if (event.kind === "observation.made") ids.set(keyOf(event), event.payload.observationId);
  }
  return ids;
}

/**
 * Observation ids are minted fresh on every execution, but recorded model
 * outputs cite them (plan evidence ids, claims). This rewrites each recorded
 * id to the id the replay gave the same call (same step, call id and index),
 * reading the replay's trace at the moment of the model call.
 */
export function observationIdTranslator(
  recorded: readonly TypedTraceEvent[],
  runtime: ReinRuntime,
  runId: string,
): (text: string) => Promise<string> {
  const recordedIds = observationIds(recorded);
  return async (text) => {
    if (!text.includes("obs_")) return text;
    const current = observationIds(await runtime.trace.read(runId));
    let result = text;
    for (const [key, recordedId] of recordedIds) {
      const replayId = current.get(key);
      if (replayId && replayId !== recordedId) result = result.replaceAll(recordedId, replayId);
    }
    return result;
  };
}
