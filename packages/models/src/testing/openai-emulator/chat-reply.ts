import type { FakeReply } from "../fake-model-server.ts";
import { halves, sseFrame, streamPieces } from "../wire-reply.ts";
import type { ChatCall } from "./chat-request.ts";
import type { PlannedReply } from "./planned-reply.ts";
import type { CacheUse } from "./prompt-cache.ts";

/** Usage as Chat Completions spells it (SDK `resources/completions.ts`, `CompletionUsage`). */
export function chatUsage(cache: CacheUse, outputTokens: number, reasoningTokens: number) {
  return {
    prompt_tokens: cache.inputTokens,
    completion_tokens: outputTokens,
    total_tokens: cache.inputTokens + outputTokens,
    prompt_tokens_details: { cached_tokens: cache.cachedTokens, cache_write_tokens: cache.cacheWriteTokens, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: reasoningTokens,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

/**
 * Spells a planned reply as Chat Completions does: one assistant message
 * (reasoning is never returned there, only counted), `finish_reason`
 * `tool_calls`, `length` for a cut reply or `stop`, a refusal in
 * `message.refusal`; streamed, `chat.completion.chunk`s with tool call
 * fragments by `index`, a finish chunk, the usage chunk (`choices: []`)
 * when `stream_options.include_usage` asked for it, and `[DONE]`.
 */
export function chatReply(call: ChatCall, planned: PlannedReply, usage: ReturnType<typeof chatUsage>, completionId: string): FakeReply {
  const text = planned.items.flatMap((item) => (item.kind === "text" ? [item.text] : [])).join("");
  const refusal = planned.items.flatMap((item) => (item.kind === "refusal" ? [item.text] : [])).join("");
  const calls = planned.items.flatMap((item) => (item.kind === "call" ? [item] : []));
  const finishReason = planned.incomplete ? "length" : calls.length > 0 ? "tool_calls" : "stop";
  const head = {
    id: completionId,
    created: 1_796_000_000,
    model: call.model.id,
    system_fingerprint: "fp_emulator",
    service_tier: "default",
  };
  const headers = { "x-request-id": `req_${completionId}` };
  if (!call.view.stream) {
    const message = {
      role: "assistant",
      content: text || null,
      refusal: refusal || null,
      annotations: [],
      ...(calls.length > 0
        ? {
            tool_calls: calls.map((item) => ({
              id: item.callId,
              type: "function",
              function: { name: item.name, arguments: item.arguments },
            })),
          }
        : {}),
    };
    return {
      status: 200,
      json: { ...head, object: "chat.completion", choices: [{ index: 0, message, finish_reason: finishReason, logprobs: null }], usage },
      headers,
    };
  }
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    sseFrame({ ...head, object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }] });
  const frames = [chunk({ role: "assistant", content: "", refusal: null })];
  for (const piece of streamPieces(text)) frames.push(chunk({ content: piece }));
  for (const piece of streamPieces(refusal)) frames.push(chunk({ refusal: piece }));
  calls.forEach((item, index) => {
    frames.push(chunk({ tool_calls: [{ index, id: item.callId, type: "function", function: { name: item.name, arguments: "" } }] }));
    for (const piece of halves(item.arguments)) frames.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  frames.push(chunk({}, finishReason));
  if (call.streamUsage) frames.push(sseFrame({ ...head, object: "chat.completion.chunk", choices: [], usage }));
  frames.push("data: [DONE]\n\n");
  return { sse: frames.join(""), headers };
}
