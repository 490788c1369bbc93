import type Anthropic from "@anthropic-ai/sdk";
import type { Usage } from "@rein/contracts";
import { parseJsonText } from "../json-from-model-text.ts";
import { type ContentBlock, type StopReason, textOf } from "../model-provider.ts";
import { unwrapOutput } from "../structured-output.ts";
import type { OutputMode } from "./anthropic-request.ts";

export interface AnthropicUsageFields {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  /** How the cache writes split by lifetime; the 1-hour ones are priced higher. */
  cache_creation?: { ephemeral_5m_input_tokens?: number | null; ephemeral_1h_input_tokens?: number | null } | null;
}

/** The cache writes that went to the 1-hour cache, for `costOf`. */
export function longCacheWritesOf(usage: AnthropicUsageFields): { longCacheWriteTokens: number } {
  return { longCacheWriteTokens: usage.cache_creation?.ephemeral_1h_input_tokens ?? 0 };
}

export function mapAnthropicStopReason(reason: string | null | undefined): StopReason {
  switch (reason) {
    case "end_turn":
    case "tool_use":
    case "max_tokens":
    case "stop_sequence":
    case "refusal":
      return reason;
    case "model_context_window_exceeded":
      return "max_tokens";
    default:
      return "other";
  }
}

/** Anthropic's `input_tokens` already excludes cache reads and writes, which is what Rein's Usage means. */
export function mapAnthropicUsage(usage: AnthropicUsageFields): Usage {
  return {
    inputTokens: usage.input_tokens ?? 0,
    outputTokens: usage.output_tokens ?? 0,
    cacheReadTokens: usage.cache_read_input_tokens ?? 0,
    cacheWriteTokens: usage.cache_creation_input_tokens ?? 0,
    costUsd: 0,
  };
}

/** A thinking block as Rein keeps it: sent back later only to the model it names, which is the model Rein asked for. */
export function thinkingBlock(text: string, signature: string, model: string, redacted = false): ContentBlock {
  return { type: "thinking", text, signature, producer: { api: "anthropic-messages", model }, ...(redacted ? { redacted: true } : {}) };
}

/**
 * Reads structured output back as the request asked for it. A forced
 * tool's call is the reply, not a call to run: its input becomes `output`
 * and a text block, and the turn ends normally rather than with
 * `tool_use`. An `output_config.format` reply is JSON text ("Claude's
 * response is valid JSON matching your schema, returned in the response's
 * text content block", https://platform.claude.com/docs/en/build-with-claude/structured-outputs);
 * one asked for in the prompt may come fenced. Output that does not parse
 * (cut by max_tokens, say) is left for the caller to repair.
 */
export function readOutput(
  content: ContentBlock[],
  stopReason: StopReason,
  mode: OutputMode | undefined,
): { content: ContentBlock[]; stopReason: StopReason; output?: unknown } {
  if (!mode) return { content, stopReason };
  if (mode.kind !== "tool") {
    const text = textOf(content);
    const parsed = mode.kind === "format" ? strictJson(text) : parseJsonText(text);
    const output = parsed === undefined ? undefined : unwrapOutput(parsed, mode.wrapped);
    return output === undefined ? { content, stopReason } : { content, stopReason, output };
  }
  const index = content.findIndex((block) => block.type === "tool_call" && block.name === mode.name && !block.incomplete);
  const call = content[index];
  if (call?.type !== "tool_call") return { content, stopReason };
  const output = unwrapOutput(call.input, mode.wrapped);
  const rest = content.filter((_, position) => position !== index);
  return {
    content: [...rest, { type: "text", text: JSON.stringify(output) }],
    stopReason: stopReason === "tool_use" ? "end_turn" : stopReason,
    output,
  };
}

function strictJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A non-streamed reply in neutral terms; `model` is the one the request named, which its thinking blocks are tied to. */
export function fromAnthropicMessage(
  message: Anthropic.Message,
  model: string,
): {
  content: ContentBlock[];
  stopReason: StopReason;
  usage: Usage;
  longCacheWriteTokens: number;
} {
  const stopReason = mapAnthropicStopReason(message.stop_reason);
  const content: ContentBlock[] = [];
  message.content.forEach((block, position) => {
    if (block.type === "text") content.push({ type: "text", text: block.text });
    else if (block.type === "thinking") content.push(thinkingBlock(block.thinking, block.signature, model));
    else if (block.type === "redacted_thinking") content.push(thinkingBlock("", block.data, model, true));
    else if (block.type === "tool_use") {
      // The last block of a reply cut by max_tokens is the one that was cut.
      const cut = stopReason === "max_tokens" && position === message.content.length - 1;
      content.push(
        cut
          ? {
              type: "tool_call",
              id: block.id,
              name: block.name,
              input: {},
              incomplete: { reason: "max_tokens", rawArguments: JSON.stringify(block.input ?? {}) },
            }
          : { type: "tool_call", id: block.id, name: block.name, input: block.input ?? {} },
      );
    }
  });
  return { content, stopReason, usage: mapAnthropicUsage(message.usage), ...longCacheWritesOf(message.usage) };
}
