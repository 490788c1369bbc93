import { z } from "zod";

/**
 * The Messages API request as the emulator reads it, from the API reference
 * (https://platform.claude.com/docs/en/api/messages) and the installed SDK's
 * `MessageCreateParamsBase`. Objects the API closes are `.strict()`, so a
 * field the API does not take is refused as the API refuses it: "<path>:
 * Extra inputs are not permitted".
 */

export const CacheControl = z.object({ type: z.literal("ephemeral"), ttl: z.enum(["5m", "1h"]).optional() }).strict();
export type CacheControl = z.infer<typeof CacheControl>;

const cacheControl = CacheControl.nullish();

const TextBlock = z
  .object({ type: z.literal("text"), text: z.string(), cache_control: cacheControl, citations: z.array(z.unknown()).nullish() })
  .strict();
const ImageBlock = z
  .object({ type: z.literal("image"), source: z.object({ type: z.string() }).loose(), cache_control: cacheControl })
  .strict();
const ToolUseBlock = z
  .object({
    type: z.literal("tool_use"),
    id: z.string(),
    name: z.string(),
    input: z.record(z.string(), z.unknown()),
    cache_control: cacheControl,
  })
  .strict();
const ToolResultBlock = z
  .object({
    type: z.literal("tool_result"),
    tool_use_id: z.string(),
    content: z.union([z.string(), z.array(z.discriminatedUnion("type", [TextBlock, ImageBlock]))]).optional(),
    is_error: z.boolean().optional(),
    cache_control: cacheControl,
  })
  .strict();
// No cache_control: "Thinking blocks cannot be cached directly with cache_control" (prompt-caching page).
const ThinkingBlock = z.object({ type: z.literal("thinking"), thinking: z.string(), signature: z.string() }).strict();
const RedactedThinkingBlock = z.object({ type: z.literal("redacted_thinking"), data: z.string() }).strict();

export const WireBlock = z.discriminatedUnion("type", [
  TextBlock,
  ImageBlock,
  ToolUseBlock,
  ToolResultBlock,
  ThinkingBlock,
  RedactedThinkingBlock,
]);
export type WireBlock = z.infer<typeof WireBlock>;

const WireMessage = z.object({ role: z.enum(["user", "assistant"]), content: z.union([z.string(), z.array(WireBlock)]) }).strict();

const WireTool = z
  .object({
    type: z.literal("custom").optional(),
    name: z.string(),
    description: z.string().optional(),
    input_schema: z.object({ type: z.literal("object") }).loose(),
    strict: z.boolean().optional(),
    cache_control: cacheControl,
    eager_input_streaming: z.boolean().nullish(),
    input_examples: z.array(z.record(z.string(), z.unknown())).optional(),
  })
  .strict();
export type WireTool = z.infer<typeof WireTool>;

const WireToolChoice = z.discriminatedUnion("type", [
  z.object({ type: z.literal("auto"), disable_parallel_tool_use: z.boolean().optional() }).strict(),
  z.object({ type: z.literal("any"), disable_parallel_tool_use: z.boolean().optional() }).strict(),
  z.object({ type: z.literal("tool"), name: z.string(), disable_parallel_tool_use: z.boolean().optional() }).strict(),
  z.object({ type: z.literal("none") }).strict(),
]);

const WireThinking = z
  .object({
    type: z.enum(["adaptive", "enabled", "disabled", "between_tools"]),
    display: z.string().nullish(),
    budget_tokens: z.number().int().optional(),
    block_binding: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

export const WireRequest = z
  .object({
    model: z.string(),
    max_tokens: z.number().int().nonnegative(),
    messages: z.array(WireMessage),
    system: z.union([z.string(), z.array(TextBlock)]).optional(),
    tools: z.array(WireTool).optional(),
    tool_choice: WireToolChoice.optional(),
    thinking: WireThinking.optional(),
    output_config: z
      .object({
        effort: z.string().nullish(),
        format: z
          .object({ type: z.literal("json_schema"), schema: z.record(z.string(), z.unknown()) })
          .strict()
          .nullish(),
      })
      .strict()
      .optional(),
    cache_control: cacheControl,
    stream: z.boolean().optional(),
    stop_sequences: z.array(z.string()).optional(),
    metadata: z.object({ user_id: z.string().nullish() }).strict().optional(),
    service_tier: z.enum(["auto", "standard_only"]).optional(),
    speed: z.enum(["standard", "fast"]).nullish(),
    inference_geo: z.string().nullish(),
    container: z.unknown().optional(),
    diagnostics: z.unknown().optional(),
    // Taken by API version 2023-06-01 only; the sampling rule decides before this schema sees them.
    temperature: z.number().optional(),
    top_p: z.number().optional(),
    top_k: z.number().int().optional(),
  })
  .strict();
export type WireRequest = z.infer<typeof WireRequest>;
export type WireMessage = { role: "user" | "assistant"; content: WireBlock[] };

/** The first problem with a body, in the API's `<path>: <problem>` form. */
export function bodyProblem(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return "invalid request body";
  const path = issue.path.join(".");
  if (issue.code === "unrecognized_keys")
    return issue.keys.map((key) => `${path ? `${path}.` : ""}${key}: Extra inputs are not permitted`).join("; ");
  if (issue.code === "invalid_type" && issue.input === undefined) return `${path}: Field required`;
  return `${path || "body"}: ${issue.message}`;
}

/**
 * Messages as the model reads them: string content as one text block, and
 * consecutive turns of one role combined ("Consecutive `user` or
 * `assistant` turns in your request will be combined into a single turn",
 * `messages` in the API reference).
 */
export function combinedMessages(messages: WireRequest["messages"]): WireMessage[] {
  const combined: WireMessage[] = [];
  for (const message of messages) {
    const content: WireBlock[] = typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
    const last = combined.at(-1);
    if (last && last.role === message.role) last.content = [...last.content, ...content];
    else combined.push({ role: message.role, content });
  }
  return combined;
}

/** A block or tool as the model reads it: cache_control marks where caching stops, it is not content. */
export function withoutCacheControl<T extends object>(value: T): Omit<T, "cache_control"> {
  const { cache_control: _marker, ...rest } = value as T & { cache_control?: unknown };
  return rest;
}
