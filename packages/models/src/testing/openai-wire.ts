import type { StopReason } from "../model-provider.ts";
import type { FakeReply, RecordedRequest } from "./fake-model-server.ts";
import { halves, sseFrame, streamPieces, type WireReply } from "./wire-reply.ts";

export interface OpenAIWireOptions {
  /**
   * Deviations of compatible servers (Ollama, llama.cpp): an empty `model`,
   * streamed tool calls without `index`, and `finish_reason: "stop"` on a
   * turn that made calls.
   */
  quirks?: boolean;
}

/** A reply in the Chat Completions wire format, streamed (SSE, usage in a last `choices: []` chunk) when asked. */
export function openAIWireReply(reply: WireReply, request: RecordedRequest, options: OpenAIWireOptions = {}): FakeReply {
  const quirks = options.quirks ?? false;
  const text = reply.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
  const calls = reply.content.flatMap((block) => (block.type === "tool_call" ? [block] : []));
  const finishReason = quirks && calls.length > 0 ? "stop" : wireFinishReason(reply.stopReason);
  const model = quirks ? "" : reply.model;
  // prompt_tokens counts cached and cache-written tokens too (SDK `CompletionUsage`).
  const promptTokens = reply.usage.inputTokens + reply.usage.cacheReadTokens + reply.usage.cacheWriteTokens;
  const usage = {
    prompt_tokens: promptTokens,
    completion_tokens: reply.usage.outputTokens,
    total_tokens: promptTokens + reply.usage.outputTokens,
    prompt_tokens_details: { cached_tokens: reply.usage.cacheReadTokens, cache_write_tokens: reply.usage.cacheWriteTokens },
  };
  const head = { id: "chatcmpl-fake", created: 1_700_000_000, model };
  const headers = { "x-request-id": "req_fake" };
  if (request.body.stream !== true) {
    const message = {
      role: "assistant",
      content: text || null,
      refusal: null,
      ...(calls.length > 0
        ? {
            tool_calls: calls.map((call) => ({
              id: call.id,
              type: "function",
              function: { name: call.name, arguments: JSON.stringify(call.input ?? {}) },
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
  const frames = [chunk({ role: "assistant", content: "" })];
  for (const piece of streamPieces(text)) frames.push(chunk({ content: piece }));
  calls.forEach((call, index) => {
    const position = quirks ? {} : { index };
    frames.push(chunk({ tool_calls: [{ ...position, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] }));
    for (const piece of halves(JSON.stringify(call.input ?? {})))
      frames.push(chunk({ tool_calls: [{ ...position, function: { arguments: piece } }] }));
  });
  frames.push(chunk({}, finishReason));
  frames.push(sseFrame({ ...head, object: "chat.completion.chunk", choices: [], usage }));
  frames.push("data: [DONE]\n\n");
  return { sse: frames.join(""), headers };
}

function wireFinishReason(reason: StopReason): string {
  switch (reason) {
    case "tool_use":
      return "tool_calls";
    case "max_tokens":
      return "length";
    case "refusal":
      return "content_filter";
    default:
      return "stop";
  }
}
