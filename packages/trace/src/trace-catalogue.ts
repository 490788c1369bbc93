import type { z } from "zod";
import { type Usage, ReinError } from "@rein/contracts";
import { callEvents } from "./catalogue/call-events.ts";
import { evaluatorEvents } from "./catalogue/evaluator-events.ts";
import { groupEvents } from "./catalogue/group-events.ts";
import { modelEvents } from "./catalogue/model-events.ts";
import { pluginEvents } from "./catalogue/plugin-events.ts";
import { runEvents } from "./catalogue/run-events.ts";
import { stepEvents } from "./catalogue/step-events.ts";
import type { TraceKindSpec } from "./catalogue/trace-kind.ts";

type CallEvents = typeof callEvents;
export type CallTraceKind = keyof CallEvents;

/**
 * The evaluator runs its check commands through the tool executor and
 * records that executor's events under `check.`, so a check's calls are
 * never mistaken for the worker's.
 */
export const CHECK_PREFIX = "check.";
const checkCallEvents = asCheckEvents(callEvents);

function asCheckEvents(events: CallEvents): { [Kind in CallTraceKind as `check.${Kind}`]: CallEvents[Kind] } {
  const entries = Object.entries(events).map(([kind, spec]) => [
    `${CHECK_PREFIX}${kind}`,
    { ...spec, summary: `An evaluator check command's call: ${spec.summary}`, emittedBy: "evaluator" },
  ]);
  // Object.fromEntries loses the key names; each key is `check.` plus a key of `events`, with that key's spec.
  return Object.fromEntries(entries) as { [Kind in CallTraceKind as `check.${Kind}`]: CallEvents[Kind] };
}

/** The catalogue's areas in the order docs/trace-events.md lists them. */
export const TRACE_AREAS = [
  { title: "Runs", kinds: runEvents },
  { title: "Steps", kinds: stepEvents },
  { title: "Parallel groups", kinds: groupEvents },
  { title: "Model calls", kinds: modelEvents },
  { title: "Tool calls", kinds: callEvents },
  { title: "Evaluator", kinds: evaluatorEvents },
  { title: "Plugins", kinds: pluginEvents },
] as const;

/**
 * Every trace event kind Rein writes, mapped to its payload schema. Adding
 * a kind is one entry in the file of its area under `catalogue/`; the
 * types of `append`, the validation of every read and docs/trace-events.md
 * follow from here.
 */
export const traceCatalogue = {
  ...runEvents,
  ...stepEvents,
  ...groupEvents,
  ...modelEvents,
  ...callEvents,
  ...checkCallEvents,
  ...evaluatorEvents,
  ...pluginEvents,
} satisfies Record<string, TraceKindSpec>;

export type TraceCatalogue = typeof traceCatalogue;
export type TraceKind = keyof TraceCatalogue;
/** A payload as readers see it. */
export type TracePayload<Kind extends TraceKind> = z.output<TraceCatalogue[Kind]["payload"]>;
/** A payload as producers write it (fields with defaults may be left out). */
export type TracePayloadInput<Kind extends TraceKind> = z.input<TraceCatalogue[Kind]["payload"]>;

export const isTraceKind = (kind: string): kind is TraceKind => Object.hasOwn(traceCatalogue, kind);

interface TraceEnvelopeInput {
  runId: string;
  ts?: string;
  stepId?: string | null;
  parentStepId?: string | null;
  inputHash?: string;
  outputHash?: string;
  durationMs?: number;
  usage?: Usage;
}

/** One event of a given kind, before the trace log assigns its seq. */
export type TraceEventInputOf<Kind extends TraceKind> = TraceEnvelopeInput & { kind: Kind; payload: TracePayloadInput<Kind> };

/** Any event before it is written: TypeScript checks the payload against the kind. */
export type TraceEventInput = { [Kind in TraceKind]: TraceEventInputOf<Kind> }[TraceKind];

/**
 * A kind with its payload: what a producer chooses of an event, the rest
 * being its envelope. A union, so a helper that takes one and spreads it
 * into the envelope (`{ runId, ...body }`) writes a `TraceEventInput` with
 * each payload checked against its kind and no widening.
 */
export type TraceEventBody = { [Kind in TraceKind]: { kind: Kind; payload: TracePayloadInput<Kind> } }[TraceKind];

/**
 * Widens an event whose kind is computed to the union the trace writers
 * take: `CallTrace.emit`, which adds the call's ids to a stage's payload,
 * and `asCheckEvent`, which prefixes the kind. Use it only where the
 * helper's own signature ties the payload to the kind, as
 * `emit<Kind>(kind: Kind, payload: CallEventPayload<Kind>)` does:
 * TypeScript checks the pair at the helper's call, but cannot carry that
 * link through the generic into a union of all kinds
 * (microsoft/TypeScript#30581). A helper that does not change the payload
 * takes a `TraceEventBody` instead.
 */
export function traceEventInput(input: TraceEnvelopeInput & { kind: TraceKind; payload: object }): TraceEventInput {
  return input as TraceEventInput;
}

/** An executor event as the evaluator's check commands record it: the same event under `check.<kind>`. */
export function asCheckEvent(event: TraceEventInput): TraceEventInput {
  const kind = `${CHECK_PREFIX}${event.kind}`;
  if (!isTraceKind(kind))
    throw new ReinError(
      "contract_invalid",
      `trace kind ${event.kind} has no ${CHECK_PREFIX} form; expected a tool call event of catalogue/call-events.ts`,
    );
  return traceEventInput({ ...event, kind });
}
