import { z } from "zod";
import { Role } from "@rein/contracts";
import type { ModelStreamEvent } from "@rein/models";
import { stripControlCharacters } from "@rein/guard";

const Source = {
  runId: z.string().min(1),
  stepId: z.string().nullable(),
  role: Role,
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
