import type { TraceEvent } from "@rein/contracts/run";
import { type TraceKind, type TracePayloadInput, type TypedTraceEvent, typedTraceEvent } from "@rein/trace";

/** The envelope fields a test may set; the rest get fixed values. */
export type TraceEnvelope = Partial<Omit<TraceEvent, "kind" | "payload">>;

/**
 * A trace event for a test, checked against the catalogue as a read from
 * Redis is: a fixture with an unknown kind or a payload of the wrong shape
 * fails its test here instead of passing a reader something Rein never writes.
 */
export function traceEventOf<Kind extends TraceKind>(
  kind: Kind,
  payload: TracePayloadInput<Kind>,
  envelope: TraceEnvelope = {},
): TypedTraceEvent {
  return typedTraceEvent({
    schemaVersion: 1,
    seq: 1,
    ts: new Date(0).toISOString(),
    runId: "run_test",
    stepId: null,
    parentStepId: null,
    ...envelope,
    kind,
    payload,
  });
}
