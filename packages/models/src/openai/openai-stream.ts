import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import type { ModelStreamEvent } from "../model-provider.ts";
import { StreamEndedEarlyError } from "../stream-ended-early.ts";
import { argumentsText, type CollectedReply } from "./openai-response.ts";

type ToolCallFragment = ChatCompletionChunk.Choice.Delta.ToolCall;

interface OpenCall {
  id: string;
  name: string;
  arguments: string;
  index: number | undefined;
}

/**
 * Collects a streamed chat completion. Tool call fragments are matched to a
 * call by `index` as OpenAI sends them, tolerating compatible servers that
 * omit `index` or repeat one index for every call: a fragment with an id
 * we have not seen opens a new call, one with a known id or index continues
 * it, and one with neither continues the last call.
 */
export class OpenAIStreamAssembler {
  private readonly reply: CollectedReply = { text: "", refusal: "", toolCalls: [], finishReason: undefined, usage: undefined, model: "" };
  private readonly calls: OpenCall[] = [];

  constructor(private readonly onEvent?: (event: ModelStreamEvent) => void) {}

  accept(chunk: ChatCompletionChunk): void {
    if (chunk.model) this.reply.model = chunk.model;
    // With include_usage the last chunk carries usage and `choices: []`.
    if (chunk.usage) this.reply.usage = chunk.usage;
    const choice = chunk.choices?.find((candidate) => (candidate.index ?? 0) === 0);
    if (!choice) return;
    const delta = choice.delta ?? {};
    if (delta.content) {
      this.reply.text += delta.content;
      this.onEvent?.({ type: "text_delta", text: delta.content });
    }
    if (delta.refusal) this.reply.refusal += delta.refusal;
    for (const fragment of delta.tool_calls ?? []) this.acceptToolCall(fragment);
    if (choice.finish_reason) this.reply.finishReason = choice.finish_reason;
  }

  /**
   * The collected reply, once the stream has closed. A stream that closed
   * with no finish reason, and without the usage chunk it was asked for,
   * was cut: proxies and servers that die mid-generation close cleanly.
   */
  finish(options: { usageRequested: boolean }): CollectedReply {
    if (!this.reply.finishReason && (!options.usageRequested || !this.reply.usage)) {
      const what = options.usageRequested ? "a finish reason or usage" : "a finish reason";
      throw new StreamEndedEarlyError(`the stream closed without ${what}: the reply was cut off`);
    }
    return { ...this.reply, toolCalls: this.calls.map(({ id, name, arguments: text }) => ({ id, name, arguments: text })) };
  }

  private acceptToolCall(fragment: ToolCallFragment): void {
    const index = typeof fragment.index === "number" ? fragment.index : undefined;
    let call: OpenCall | undefined;
    if (fragment.id) call = this.calls.find((candidate) => candidate.id === fragment.id);
    else if (index !== undefined) call = this.calls.findLast((candidate) => candidate.index === index);
    else call = this.calls.at(-1);
    if (!call) {
      call = { id: fragment.id || `call_${this.calls.length}`, name: "", arguments: "", index };
      this.calls.push(call);
    }
    if (fragment.function?.name && !call.name) call.name = fragment.function.name;
    const argumentsDelta = argumentsText(fragment.function?.arguments);
    if (argumentsDelta) {
      call.arguments += argumentsDelta;
      this.onEvent?.({ type: "tool_call_delta", id: call.id, name: call.name, argumentsDelta });
    }
  }
}
