import { z } from "zod";
import { Role } from "@rein/contracts";
import type { ModelStreamEvent } from "@rein/models";
import { stripControlCharacters } from "@rein/guard";

const Source = {
  runId: z.string().min(1),
  stepId: z.string().nullable(),
  role: Role,
};

/** Which tool call of the step: the model's call id and its index among the step's calls (its idempotency key's last part). */
const Call = {
  callId: z.string(),
  tool: z.string(),
  index: z.number().int().nonnegative(),
};

/**
 * One piece of model output as it streams, tagged with who produced it.
 * `thinking_delta` is readable thinking (text between tool calls on current
 * Claude models, OpenAI's reasoning summaries): progress, never the answer.
 * `retry` means the call's partial output so far is void: the adapter is
 * starting the call again, so a consumer drops the text it has shown for
 * this role and step since the call began, and shows the new attempt's.
 * `call_started` and `call_finished` bracket each call, so a view can show
 * how long one has been in flight while nothing streams.
 *
 * `tool_started`, `tool_progress` and `tool_finished` bracket each tool call
 * a worker runs (not one replayed, served from the cache or refused): its
 * events reach the trace only with the turn's one durable write, after the
 * call ends, and a call can run for minutes. The durable `tool.called` and
 * `tool.result` follow; a view keys both by step and call id and shows the
 * call once.
 */
export const LiveEvent = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text_delta"), ...Source, text: z.string() }),
  z.object({ type: z.literal("thinking_delta"), ...Source, text: z.string() }),
  z.object({
    type: z.literal("retry"),
    ...Source,
    attempt: z.number().int().positive(),
    reason: z.string(),
    delayMs: z.number().nonnegative(),
  }),
  z.object({ type: z.literal("call_started"), ...Source }),
  z.object({ type: z.literal("call_finished"), ...Source, durationMs: z.number().nonnegative() }),
  z.object({
    type: z.literal("tool_started"),
    ...Source,
    ...Call,
    startedAt: z.string(),
    /** The arguments, redacted, when they are at most 4 KiB (as `tool.called` keeps them). */
    args: z.unknown().optional(),
  }),
  z.object({
    type: z.literal("tool_progress"),
    ...Source,
    ...Call,
    progress: z.number(),
    total: z.number().optional(),
    message: z.string().optional(),
  }),
  z.object({ type: z.literal("tool_finished"), ...Source, ...Call, status: z.string(), durationMs: z.number().nonnegative() }),
]);
export type LiveEvent = z.infer<typeof LiveEvent>;

/**
 * The live event for a model stream event, or undefined for events a live
 * view does not show (tool argument fragments). Model text reaches
 * terminals and pages, so control characters (escape sequences) and
 * invisible ones are taken out of it here, once for every view.
 */
export function liveEventOf(event: ModelStreamEvent, source: { runId: string; stepId: string | null; role: Role }): LiveEvent | undefined {
  switch (event.type) {
    case "text_delta":
    case "thinking_delta":
      return { type: event.type, ...source, text: stripControlCharacters(event.text).text };
    case "retry":
      return { type: "retry", ...source, attempt: event.attempt, reason: event.reason, delayMs: event.delayMs };
    case "call_started":
      return { type: "call_started", ...source };
    case "call_finished":
      return { type: "call_finished", ...source, durationMs: event.durationMs };
    default:
      return undefined;
  }
}
