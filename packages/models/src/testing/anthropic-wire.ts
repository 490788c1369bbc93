import { z } from "zod";
import type { StopReason } from "../model-provider.ts";
import type { FakeReply, RecordedRequest } from "./fake-model-server.ts";
import { halves, sseFrame, streamPieces, type WireReply } from "./wire-reply.ts";

type WireBlock = { type: "text"; text: string } | { type: "tool_use"; id: string; name: string; input: unknown };

/**
 * A reply in the Messages API's wire format, streamed (SSE) when the request
 * asked for a stream. The reply's `output` is the JSON text of the answer
 * when the request asked for it through `output_config.format`, and the
 * forced tool's input when it forced a tool (models that still allow it).
 */
export function anthropicWireReply(reply: WireReply, request: RecordedRequest): FakeReply {
  const forced = forcedTool(request.body);
  const format = FormatRequest.safeParse(request.body).data?.output_config.format;
  const blocks: WireBlock[] = forced
    ? [{ type: "tool_use", id: "toolu_output", name: forced.name, input: forced.wrapped ? { value: reply.output } : reply.output }]
    : format && reply.output !== undefined
      ? [{ type: "text", text: JSON.stringify(wrapsValue(format.schema) ? { value: reply.output } : reply.output) }]
      : reply.content.flatMap((block): WireBlock[] => {
          if (block.type === "text") return [{ type: "text", text: block.text }];
          if (block.type === "tool_call") return [{ type: "tool_use", id: block.id, name: block.name, input: block.input }];
          return [];
        });
  const stopReason = forced ? "tool_use" : wireStopReason(reply.stopReason);
  const usage = {
    input_tokens: reply.usage.inputTokens,
    output_tokens: reply.usage.outputTokens,
    cache_read_input_tokens: reply.usage.cacheReadTokens,
    cache_creation_input_tokens: reply.usage.cacheWriteTokens,
  };
  const message = { id: "msg_fake", type: "message", role: "assistant", model: reply.model };
  if (request.body.stream !== true) {
    return {
      status: 200,
      json: { ...message, content: blocks, stop_reason: stopReason, stop_sequence: null, usage },
      headers: { "request-id": "req_fake" },
    };
  }
  const frames = [
    sseFrame(
      {
        type: "message_start",
        message: { ...message, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } },
      },
      "message_start",
    ),
  ];
  blocks.forEach((block, index) => {
    if (block.type === "text") {
      frames.push(sseFrame({ type: "content_block_start", index, content_block: { type: "text", text: "" } }, "content_block_start"));
      for (const text of streamPieces(block.text))
        frames.push(sseFrame({ type: "content_block_delta", index, delta: { type: "text_delta", text } }, "content_block_delta"));
    } else {
      frames.push(
        sseFrame(
          { type: "content_block_start", index, content_block: { type: "tool_use", id: block.id, name: block.name, input: {} } },
          "content_block_start",
        ),
      );
      for (const partial_json of halves(JSON.stringify(block.input ?? {}))) {
        frames.push(
          sseFrame({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json } }, "content_block_delta"),
        );
      }
    }
    frames.push(sseFrame({ type: "content_block_stop", index }, "content_block_stop"));
  });
  frames.push(
    sseFrame(
      { type: "message_delta", delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } },
      "message_delta",
    ),
  );
  frames.push(sseFrame({ type: "message_stop" }, "message_stop"));
  return { sse: frames.join(""), headers: { "request-id": "req_fake" } };
}

/** A request that forces a tool: `tool_choice` names it, `tools` declares it. */
const ForcingRequest = z.object({
  tool_choice: z.object({ type: z.literal("tool"), name: z.string().min(1) }),
  tools: z
    .array(z.object({ name: z.string(), input_schema: z.object({ properties: z.record(z.string(), z.unknown()).optional() }).optional() }))
    .default([]),
});
const ToolChoice = z.object({ type: z.string() }).optional();
const FormatRequest = z.object({ output_config: z.object({ format: z.object({ schema: z.record(z.string(), z.unknown()) }) }) });

/** Whether a format schema is a non-object output wrapped as `{ value }`. */
function wrapsValue(schema: Record<string, unknown>): boolean {
  const properties = Object.keys(z.object({ properties: z.record(z.string(), z.unknown()) }).safeParse(schema).data?.properties ?? {});
  return properties.length === 1 && properties[0] === "value";
}

/**
 * The tool a request forced with `tool_choice`, and whether its schema wraps
 * a non-object output as `{ value }`. A forcing request of the wrong shape
 * throws: the fake server answers it with a 400 that names the field.
 */
function forcedTool(body: Record<string, unknown>): { name: string; wrapped: boolean } | undefined {
  if (ToolChoice.safeParse(body.tool_choice).data?.type !== "tool") return undefined;
  const forcing = ForcingRequest.safeParse(body);
  if (!forcing.success)
    throw new Error(
      `a request forcing a tool is malformed: ${z.prettifyError(forcing.error)}; expected tool_choice {type: "tool", name} and tools [{name, input_schema}]`,
    );
  const { tool_choice: choice, tools } = forcing.data;
  const tool = tools.find((candidate) => candidate.name === choice.name);
  const properties = Object.keys(tool?.input_schema?.properties ?? {});
  return { name: choice.name, wrapped: properties.length === 1 && properties[0] === "value" };
}

function wireStopReason(reason: StopReason): string {
  return reason === "other" ? "end_turn" : reason;
}
