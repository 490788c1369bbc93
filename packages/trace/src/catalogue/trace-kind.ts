import type { z } from "zod";

/**
 * One trace event kind: what it records and the shape of its payload.
 * Payload schemas are plain `z.object`s: a reader gets the named fields
 * typed, and fields a producer adds beyond them are kept as written.
 */
export interface TraceKindSpec {
  /** One line for docs/trace-events.md: what happened when this event is written. */
  readonly summary: string;
  /** Which part of Rein writes it. */
  readonly emittedBy: string;
  readonly payload: z.ZodObject;
}

/** Keeps each kind's literal name and payload type while checking the entries' shape. */
export const traceKinds = <const Kinds extends Record<string, TraceKindSpec>>(kinds: Kinds): Kinds => kinds;
