import { z } from "zod";

/** The wire a model call went over; a thinking block goes back only over the wire (and to the model) that made it. */
export const ModelApi = z.enum(["anthropic-messages", "openai-responses", "openai-chat"]);
export type ModelApi = z.infer<typeof ModelApi>;

const TextBlock = z.object({ type: z.literal("text"), text: z.string() });

const ToolCallBlock = z.object({
  type: z.literal("tool_call"),
  id: z.string(),
  name: z.string(),
  input: z.unknown(),
  /** The call was cut off (by max_tokens, or its arguments never became valid JSON). The runtime must never execute it. */
  incomplete: z.object({ reason: z.string(), rawArguments: z.string() }).optional(),
});

const ToolResultBlock = z.object({
  type: z.literal("tool_result"),
  toolCallId: z.string(),
  content: z.string(),
  isError: z.boolean().optional(),
  /** Images the result shows (base64); adapters of providers that take images send them, others only the text, which describes them. */
  images: z.array(z.object({ mediaType: z.string(), data: z.string() })).optional(),
});

/**
 * Reasoning a model returned, kept so that the next request of a tool loop
 * can hand it back unmodified, in place: Anthropic's `thinking` and
 * `redacted_thinking` blocks, OpenAI's reasoning items. `text` is what a
 * person may read of it (never an instruction to anyone); `signature` is the
 * provider's opaque proof and is sent back byte for byte.
 */
const ThinkingBlock = z.object({
  type: z.literal("thinking"),
  /** Readable thinking, or the reasoning summary's parts joined by a blank line; empty when the provider shows none. */
  text: z.string(),
  /** Anthropic: the block's `signature`, or a redacted block's `data`. OpenAI: the item's `encrypted_content`. */
  signature: z.string(),
  /** Which wire and model made it; adapters drop a block another model made, as the providers require. */
  producer: z.object({ api: ModelApi, model: z.string() }),
  /** Anthropic `redacted_thinking`: nothing readable. */
  redacted: z.boolean().optional(),
  /** OpenAI: the reasoning item's id and its summary parts exactly as returned. */
  item: z.object({ id: z.string(), summary: z.array(z.string()) }).optional(),
});

/** One neutral content block; adapters translate to and from each provider's wire format. */
export const ContentBlock = z.discriminatedUnion("type", [TextBlock, ToolCallBlock, ToolResultBlock, ThinkingBlock]);
export type ContentBlock = z.infer<typeof ContentBlock>;
export type ThinkingContent = z.infer<typeof ThinkingBlock>;

export const ModelMessage = z.object({
  role: z.enum(["user", "assistant"]),
  content: z.array(ContentBlock),
});
export type ModelMessage = z.infer<typeof ModelMessage>;

/** A tool offered to a model. */
export const ModelToolSchema = z.object({
  name: z.string(),
  description: z.string(),
  /** JSON Schema of the tool's input (type "object"). */
  inputSchema: z.record(z.string(), z.unknown()),
});
export type ModelToolSchema = z.infer<typeof ModelToolSchema>;

/** A structured-output request: the reply must be JSON matching `schema`. */
export const StructuredOutputRequest = z.object({
  name: z.string(),
  description: z.string().optional(),
  schema: z.record(z.string(), z.unknown()),
});
export type StructuredOutputRequest = z.infer<typeof StructuredOutputRequest>;
