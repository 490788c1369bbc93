import type Anthropic from "@anthropic-ai/sdk";
import type { Usage } from "@rein/contracts";
import type { ContentBlock, ModelStreamEvent, StopReason } from "../model-provider.ts";
import { StreamEndedEarlyError } from "../stream-ended-early.ts";
import { toolCallBlock } from "../tool-arguments.ts";
import {
  type AnthropicUsageFields,
  longCacheWritesOf,
  mapAnthropicStopReason,
  mapAnthropicUsage,
  thinkingBlock,
} from "./anthropic-response.ts";

type OpenBlock =
  | { kind: "text"; text: string }
  | { kind: "thinking"; text: string; signature: string; redacted: boolean }
  | { kind: "tool"; id: string; name: string; json: string; stopped: boolean };

/**
 * Builds a reply from Messages API stream events. Tool input arrives as JSON
 * fragments per block index and is parsed only when its block stops; a tool
 * block that never stops, or whose JSON does not parse, becomes an
 * `incomplete` call rather than a call with a guessed input. Thinking
 * arrives as `thinking_delta` text (reported as progress, never as the
 * answer) and one `signature_delta` before its block stops; a thinking block
 * that never got its signature cannot go back to the API and is left out.
 */
export class AnthropicStreamAssembler {
  private readonly blocks = new Map<number, OpenBlock>();
  private usageFields: AnthropicUsageFields = {};
  private stopReason: string | null | undefined;
  private sawMessageDelta = false;
  model = "";

  /** `requested` is the model the request named, which the reply's thinking blocks are tied to. */
  constructor(
    private readonly requested: string,
    private readonly onEvent?: (event: ModelStreamEvent) => void,
  ) {}

  accept(event: Anthropic.RawMessageStreamEvent): void {
    switch (event.type) {
      case "message_start":
        this.model = event.message.model;
        this.mergeUsage(event.message.usage);
        break;
      case "content_block_start":
        if (event.content_block.type === "text") {
          this.blocks.set(event.index, { kind: "text", text: event.content_block.text });
          if (event.content_block.text) this.onEvent?.({ type: "text_delta", text: event.content_block.text });
        } else if (event.content_block.type === "thinking") {
          const { thinking, signature } = event.content_block;
          this.blocks.set(event.index, { kind: "thinking", text: thinking, signature, redacted: false });
          if (thinking) this.onEvent?.({ type: "thinking_delta", text: thinking });
        } else if (event.content_block.type === "redacted_thinking") {
          this.blocks.set(event.index, { kind: "thinking", text: "", signature: event.content_block.data, redacted: true });
        } else if (event.content_block.type === "tool_use") {
          const { id, name } = event.content_block;
          this.blocks.set(event.index, { kind: "tool", id, name, json: "", stopped: false });
        }
        break;
      case "content_block_delta":
        this.acceptDelta(event.index, event.delta);
        break;
      case "content_block_stop": {
        const block = this.blocks.get(event.index);
        if (block?.kind === "tool") block.stopped = true;
        break;
      }
      case "message_delta":
        this.sawMessageDelta = true;
        this.stopReason = event.delta.stop_reason;
        this.mergeUsage(event.usage);
        break;
      case "message_stop":
        break;
    }
  }

  finish(): { content: ContentBlock[]; stopReason: StopReason; usage: Usage; model: string; longCacheWriteTokens: number } {
    if (!this.sawMessageDelta) {
      throw new StreamEndedEarlyError("the Anthropic stream ended before its message_delta event");
    }
    const stopReason = mapAnthropicStopReason(this.stopReason);
    const content: ContentBlock[] = [];
    for (const index of [...this.blocks.keys()].sort((a, b) => a - b)) {
      const block = this.blocks.get(index);
      if (block?.kind === "text") {
        if (block.text) content.push({ type: "text", text: block.text });
      } else if (block?.kind === "thinking") {
        if (block.signature) content.push(thinkingBlock(block.text, block.signature, this.requested, block.redacted));
      } else if (block) {
        const cutReason = block.stopped ? undefined : stopReason === "max_tokens" ? "max_tokens" : "block_not_stopped";
        const invalidReason = stopReason === "max_tokens" ? "max_tokens" : "invalid_json";
        content.push(toolCallBlock(block.id, block.name, block.json, { cutReason, invalidReason }));
      }
    }
    return { content, stopReason, usage: mapAnthropicUsage(this.usageFields), model: this.model, ...longCacheWritesOf(this.usageFields) };
  }

  private acceptDelta(index: number, delta: Anthropic.RawContentBlockDelta): void {
    const block = this.blocks.get(index);
    if (delta.type === "text_delta" && block?.kind === "text") {
      block.text += delta.text;
      this.onEvent?.({ type: "text_delta", text: delta.text });
    } else if (delta.type === "thinking_delta" && block?.kind === "thinking") {
      block.text += delta.thinking;
      if (delta.thinking) this.onEvent?.({ type: "thinking_delta", text: delta.thinking });
    } else if (delta.type === "signature_delta" && block?.kind === "thinking") {
      block.signature = delta.signature;
    } else if (delta.type === "input_json_delta" && block?.kind === "tool") {
      block.json += delta.partial_json;
      this.onEvent?.({ type: "tool_call_delta", id: block.id, name: block.name, argumentsDelta: delta.partial_json });
    }
  }

  /** message_delta repeats usage cumulatively; a field it leaves null keeps message_start's value. */
  private mergeUsage(usage: AnthropicUsageFields): void {
    for (const key of ["input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"] as const) {
      const value = usage[key];
      if (value !== null && value !== undefined) this.usageFields[key] = value;
    }
    if (usage.cache_creation) this.usageFields.cache_creation = usage.cache_creation;
  }
}
