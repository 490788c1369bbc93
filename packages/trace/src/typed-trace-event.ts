import { z } from "zod";
import { ReinError } from "@rein/contracts";
import type { TraceEvent } from "@rein/contracts/run";
import { callEvents } from "./catalogue/call-events.ts";
import { type CallTraceKind, isTraceKind, type TraceKind, type TracePayload, traceCatalogue } from "./trace-catalogue.ts";

/** A trace event whose payload is typed by its kind: narrow on `kind` to read the payload's fields. */
export type TypedTraceEvent = {
  [Kind in TraceKind]: Omit<TraceEvent, "kind" | "payload"> & { kind: Kind; payload: TracePayload<Kind> };
}[TraceKind];

/** The event of one kind, e.g. `TraceEventOf<"tool.called">`. */
export type TraceEventOf<Kind extends TraceKind> = Extract<TypedTraceEvent, { kind: Kind }>;

/**
 * Checks an event read back (from Redis or an exported file) against the
 * catalogue, so an unknown kind or a payload of the wrong shape is a
 * contract error naming the event rather than a crash in whichever reader
 * meets it first. The payload is returned exactly as stored: fields beyond
 * the schema (a tool's `traceFields`) are kept, and an export stays
 * byte-for-byte what Redis holds.
 */
export function typedTraceEvent(event: TraceEvent): TypedTraceEvent {
  const where = `trace event ${event.seq} of run ${event.runId}`;
  if (!isTraceKind(event.kind)) {
    throw new ReinError(
      "contract_invalid",
      `${where} has kind "${event.kind}", which the trace catalogue does not list; expected a kind of docs/trace-events.md`,
      {
        details: { seq: event.seq, kind: event.kind },
      },
    );
  }
  const parsed = traceCatalogue[event.kind].payload.safeParse(event.payload);
  if (!parsed.success) {
    throw new ReinError(
      "contract_invalid",
      `${where} (${event.kind}) has a malformed payload: ${z.prettifyError(parsed.error)}; expected the ${event.kind} payload of docs/trace-events.md`,
      {
        details: { seq: event.seq, kind: event.kind },
      },
    );
  }
  // The payload was parsed against this kind's schema just above; the parsed copy is not used (see the doc comment).
  return event as TypedTraceEvent;
}

/** Narrows an event to one kind, for readers that look for a few kinds among many. */
export const isTraceEventOf = <Kind extends TraceKind>(event: TypedTraceEvent, kind: Kind): event is TraceEventOf<Kind> =>
  event.kind === kind;

/** An event of one tool call through the executor (catalogue/call-events.ts): every one carries `callId`, `tool` and `index`. */
export type CallTraceEvent = TraceEventOf<CallTraceKind>;

/** Narrows an event to a tool call's events, for readers that group events by call. */
export const isCallTraceEvent = (event: TypedTraceEvent): event is CallTraceEvent => Object.hasOwn(callEvents, event.kind);

/** The first event of one kind that `where` accepts, typed by that kind. */
export function findTraceEvent<Kind extends TraceKind>(
  events: readonly TypedTraceEvent[],
  kind: Kind,
  where: (event: TraceEventOf<Kind>) => boolean = () => true,
): TraceEventOf<Kind> | undefined {
  for (const event of events) if (isTraceEventOf(event, kind) && where(event)) return event;
  return undefined;
}
