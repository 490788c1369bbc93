import type { FakeReply } from "../fake-model-server.ts";
import { halves, sseFrame, streamPieces } from "../wire-reply.ts";
import type { Refusal } from "./anthropic-emulator-refusal.ts";

export type ResponseBlock =
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "redacted_thinking"; data: string }
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };

export interface WireUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
  cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
}

export interface EmulatedMessage {
  id: string;
  model: string;
  content: ResponseBlock[];
  stop_reason: string;
  usage: WireUsage;
}

/** The documented error body, `{type: "error", error: {type, message}, request_id}`, with the `request-id` header (errors page). */
export function errorReply(refused: Refusal, requestId: string): FakeReply {
  return {
    status: refused.status,
    json: { type: "error", error: { type: refused.type, message: refused.message }, request_id: requestId },
    headers: { "request-id": requestId },
  };
}

const envelope = (message: EmulatedMessage) => ({ id: message.id, type: "message", role: "assistant", model: message.model });

/** A whole Message, as a non-streamed response. */
export function jsonReply(message: EmulatedMessage, requestId: string): FakeReply {
  return {
    status: 200,
    json: { ...envelope(message), content: message.content, stop_reason: message.stop_reason, stop_sequence: null, usage: message.usage },
    headers: { "request-id": requestId },
  };
}

/**
 * The same Message as the documented event stream
 * (https://platform.claude.com/docs/en/build-with-claude/streaming): message_start
 * with the input usage, each block as content_block_start, its deltas
 * (thinking_delta then one signature_delta just before the stop, text_delta,
 * input_json_delta fragments) and content_block_stop, then message_delta
 * with the stop reason and cumulative usage, and message_stop.
 */
export function sseReply(message: EmulatedMessage, requestId: string): FakeReply {
  const frames = [
    sseFrame(
      {
        type: "message_start",
        message: {
          ...envelope(message),
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { ...message.usage, output_tokens: 1 },
        },
      },
      "message_start",
    ),
    sseFrame({ type: "ping" }, "ping"),
  ];
  const delta = (index: number, body: Record<string, unknown>) =>
    sseFrame({ type: "content_block_delta", index, delta: body }, "content_block_delta");
  message.content.forEach((block, index) => {
    const start = (content_block: Record<string, unknown>) =>
      frames.push(sseFrame({ type: "content_block_start", index, content_block }, "content_block_start"));
    switch (block.type) {
      case "thinking":
        start({ type: "thinking", thinking: "", signature: "" });
        for (const thinking of streamPieces(block.thinking)) frames.push(delta(index, { type: "thinking_delta", thinking }));
        frames.push(delta(index, { type: "signature_delta", signature: block.signature }));
        break;
      case "redacted_thinking":
        start(block);
        break;
      case "text":
        start({ type: "text", text: "" });
        for (const text of streamPieces(block.text)) frames.push(delta(index, { type: "text_delta", text }));
        break;
      case "tool_use":
        start({ type: "tool_use", id: block.id, name: block.name, input: {} });
        for (const partial_json of halves(JSON.stringify(block.input)))
          frames.push(delta(index, { type: "input_json_delta", partial_json }));
        break;
    }
    frames.push(sseFrame({ type: "content_block_stop", index }, "content_block_stop"));
  });
  frames.push(
    sseFrame(
      { type: "message_delta", delta: { stop_reason: message.stop_reason, stop_sequence: null }, usage: message.usage },
      "message_delta",
    ),
  );
  frames.push(sseFrame({ type: "message_stop" }, "message_stop"));
  return { sse: frames.join(""), headers: { "request-id": requestId } };
}
