import type { ChatCompletion } from "openai/resources/chat/completions";
import type { CompletionUsage } from "openai/resources/completions";
import { z } from "zod";
import { type Usage, ReinError } from "@rein/contracts";
import type { ContentBlock, StopReason } from "../model-provider.ts";
import { toolCallBlock } from "../tool-arguments.ts";

/** A reply's parts as both the plain and the streamed path collect them. */
export interface CollectedReply {
  text: string;
  refusal: string;
  toolCalls: { id: string; name: string; arguments: string }[];
  finishReason: string | null | undefined;
  usage: CompletionUsage | null | undefined;
  model: string;
}

/**
 * Neutral content, stop reason and usage from a collected reply. Calls
 * present mean `tool_use` whatever the finish reason says, because some
 * compatible servers report "stop" for a turn that made calls; and
 * "tool_calls" with no call is not `tool_use`, since there is nothing to
 * run. A reply without any finish reason was not seen to end, so its
 * calls are never executable.
 */
export function finishReply(reply: CollectedReply): { content: ContentBlock[]; stopReason: StopReason; usage: Usage } {
  const cut = reply.finishReason === "length";
  const unfinished = !reply.finishReason;
  const content: ContentBlock[] = [];
  if (reply.text) content.push({ type: "text", text: reply.text });
  if (reply.refusal) content.push({ type: "text", text: reply.refusal });
  for (const call of reply.toolCalls) {
    content.push(
      toolCallBlock(call.id, call.name, call.arguments, {
        ...(unfinished ? { cutReason: "no_finish_reason" } : {}),
        invalidReason: cut ? "max_tokens" : "invalid_json",
      }),
    );
  }
  let stopReason = mapFinishReason(reply.finishReason);
  if (reply.refusal) stopReason = "refusal";
  else if (reply.toolCalls.length > 0 && !cut && !unfinished) stopReason = "tool_use";
  else if (stopReason === "tool_use" && reply.toolCalls.length === 0) stopReason = "other";
  return { content, stopReason, usage: mapOpenAIUsage(reply.usage) };
}

export function mapFinishReason(reason: string | null | undefined): StopReason {
  switch (reason) {
    case "stop":
      return "end_turn";
    case "tool_calls":
    case "function_call":
      return "tool_use";
    case "length":
      return "max_tokens";
    case "content_filter":
      return "refusal";
    default:
      return "other";
  }
}

/** DeepSeek and servers copying it report cache hits outside `prompt_tokens_details`. */
interface CompatibleUsageFields {
  prompt_cache_hit_tokens?: number | null;
  prompt_cache_miss_tokens?: number | null;
}

/**
 * OpenAI's `prompt_tokens` includes the tokens read from the cache and
 * those written to it (`prompt_tokens_details.cached_tokens` and
 * `cache_write_tokens`); Rein counts each once, as cache reads and writes.
 * DeepSeek-style servers report reads as `prompt_cache_hit_tokens`
 * (hit + miss = prompt_tokens).
 */
export function mapOpenAIUsage(usage: (CompletionUsage & CompatibleUsageFields) | null | undefined): Usage {
  const cached = usage?.prompt_tokens_details?.cached_tokens ?? usage?.prompt_cache_hit_tokens ?? 0;
  const written = usage?.prompt_tokens_details?.cache_write_tokens ?? 0;
  return {
    inputTokens: Math.max(0, (usage?.prompt_tokens ?? 0) - cached - written),
    outputTokens: usage?.completion_tokens ?? 0,
    cacheReadTokens: cached,
    cacheWriteTokens: written,
    costUsd: 0,
  };
}

/** A function call as servers send it: the SDK's type promises more than some compatible servers keep to. */
const ServerFunctionCall = z.object({ id: z.string().nullish(), function: z.object({ name: z.string(), arguments: z.unknown() }) });

/**
 * Collects a non-streamed completion. Servers vary: `tool_calls: []`, a
 * missing model, object-valued arguments. A function call without a name is
 * a final `model_error`: no tool could be meant by it.
 */
export function collectCompletion(completion: ChatCompletion): CollectedReply {
  const choice = completion.choices?.[0];
  const message = choice?.message;
  return {
    text: message?.content ?? "",
    refusal: message?.refusal ?? "",
    toolCalls: (message?.tool_calls ?? []).flatMap((call, position) => {
      if (call.type !== "function" && !("function" in call)) return [];
      const parsed = ServerFunctionCall.safeParse(call);
      if (!parsed.success) {
        throw new ReinError(
          "model_error",
          `the server's tool call ${position} is not a function call: ${z.prettifyError(parsed.error)}; expected {"id", "type": "function", "function": {"name", "arguments"}}`,
        );
      }
      const { id, function: called } = parsed.data;
      return [{ id: id || `call_${position}`, name: called.name, arguments: argumentsText(called.arguments) }];
    }),
    finishReason: choice?.finish_reason,
    usage: completion.usage,
    model: completion.model ?? "",
  };
}

/** Some servers send arguments as a JSON object rather than the string the spec names. */
export function argumentsText(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined || value === null) return "";
  return JSON.stringify(value);
}
