import type { ModelMessage, ModelRequest, ModelToolSchema } from "./model-provider.ts";

/**
 * Token estimates for the prompt compiler's budget, not for billing.
 *
 * Roughly four characters make a token for English prose and code in both
 * the Claude and GPT tokenizers; JSON and non-Latin text run denser, so the
 * estimate rounds up and adds a per-message and per-block overhead for the
 * role markers and block framing each wire format adds. A real tokenizer
 * (js-tiktoken) was left out on purpose: it models OpenAI's vocabularies
 * only, Claude's tokenizer is not published for current models, and the
 * budget needs a safe upper-ish bound rather than an exact count.
 */
export const CHARS_PER_TOKEN = 4;
export const MESSAGE_OVERHEAD_TOKENS = 4;
export const BLOCK_OVERHEAD_TOKENS = 3;

export function estimateTextTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

// Messages and tool schemas are the same objects on every call of a step, so
// each is estimated once; the budget pass then stays cheap as history grows.
const estimated = new WeakMap<object, number>();

// What providers charge for an image of about a megapixel, their usual cap before downscaling.
const IMAGE_TOKENS = 1_600;

export function estimateMessageTokens(message: ModelMessage): number {
  const known = estimated.get(message);
  if (known !== undefined) return known;
  let tokens = MESSAGE_OVERHEAD_TOKENS;
  for (const block of message.content) {
    tokens += BLOCK_OVERHEAD_TOKENS;
    if (block.type === "text") tokens += estimateTextTokens(block.text);
    else if (block.type === "tool_result") tokens += estimateTextTokens(block.content) + (block.images?.length ?? 0) * IMAGE_TOKENS;
    else if (block.type === "thinking") tokens += estimateTextTokens(block.text);
    else tokens += estimateTextTokens(block.name) + estimateTextTokens(JSON.stringify(block.input ?? {}));
  }
  estimated.set(message, tokens);
  return tokens;
}

export function estimateToolTokens(tool: ModelToolSchema): number {
  const known = estimated.get(tool);
  if (known !== undefined) return known;
  const tokens = BLOCK_OVERHEAD_TOKENS + estimateTextTokens(tool.name + tool.description + JSON.stringify(tool.inputSchema));
  estimated.set(tool, tokens);
  return tokens;
}

/** The whole request as a provider would count its input: system, messages, tools and output schema. */
export function estimateRequestTokens(request: {
  system: string;
  messages: readonly ModelMessage[];
  tools?: readonly ModelToolSchema[];
  output?: ModelRequest["output"];
}): number {
  let tokens = MESSAGE_OVERHEAD_TOKENS + estimateTextTokens(request.system);
  for (const message of request.messages) tokens += estimateMessageTokens(message);
  for (const tool of request.tools ?? []) tokens += estimateToolTokens(tool);
  if (request.output) tokens += estimateTextTokens(JSON.stringify(request.output.schema)) + BLOCK_OVERHEAD_TOKENS;
  return tokens;
}
