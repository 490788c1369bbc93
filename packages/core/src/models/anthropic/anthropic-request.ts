import type Anthropic from "@anthropic-ai/sdk";
import type { ContentBlock, ModelMessage, ModelRequest } from "../model-provider.ts";
import { objectSchemaFor } from "../structured-output.ts";

export interface AnthropicRequestSettings {
  model: string;
  maxTokens: number;
  temperature?: number;
}

/** How the structured-output tool was sent, so the reply can be read back. */
export interface OutputTool {
  name: string;
  wrapped: boolean;
}

type ContentBlockParam = Anthropic.ContentBlockParam;

/** Parameters without `stream`, which the provider sets per call. */
export type AnthropicParams = Omit<Anthropic.MessageCreateParamsNonStreaming, "stream">;

/**
 * Translates a neutral request into Messages API parameters. Structured
 * output is a forced tool whose input is the output: Anthropic's tool input
 * is the one place the API guarantees a JSON object.
 */
export function toAnthropicParams(
  request: ModelRequest,
  settings: AnthropicRequestSettings,
): { params: AnthropicParams; outputTool?: OutputTool } {
  const tools: Anthropic.Tool[] = (request.tools ?? []).map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: tool.inputSchema as Anthropic.Tool.InputSchema,
  }));
  let outputTool: OutputTool | undefined;
  let toolChoice: Anthropic.ToolChoice | undefined;
  if (request.output) {
    const { schema, wrapped } = objectSchemaFor(request.output.schema);
    tools.push({
      name: request.output.name,
      description: request.output.description ?? `Return the ${request.output.name} as this tool's input.`,
      input_schema: schema as Anthropic.Tool.InputSchema,
    });
    outputTool = { name: request.output.name, wrapped };
    toolChoice = { type: "tool", name: request.output.name };
  }
  const params: AnthropicParams = {
    model: settings.model,
    max_tokens: request.maxTokens ?? settings.maxTokens,
    messages: toAnthropicMessages(request.messages, settings.model),
    ...(request.system ? { system: request.system } : {}),
    ...(tools.length > 0 ? { tools } : {}),
    ...(toolChoice ? { tool_choice: toolChoice } : {}),
    ...(settings.temperature !== undefined ? { temperature: settings.temperature } : {}),
  };
  return outputTool ? { params, outputTool } : { params };
}

/**
 * Merges adjacent messages of one role (the API wants strict alternation),
 * so the tool results answering one assistant message travel in a single
 * user message, ahead of any text as the API requires. Empty text blocks and
 * messages left empty are dropped because the API rejects them.
 */
export function toAnthropicMessages(messages: readonly ModelMessage[], model: string): Anthropic.MessageParam[] {
  const merged: { role: "user" | "assistant"; content: ContentBlockParam[] }[] = [];
  for (const message of messages) {
    const blocks = message.content.flatMap((block) => toAnthropicBlock(block, model));
    if (blocks.length === 0) continue;
    const last = merged.at(-1);
    if (last && last.role === message.role) last.content.push(...blocks);
    else merged.push({ role: message.role, content: blocks });
  }
  for (const message of merged) {
    if (message.role === "user") message.content = toolResultsFirst(message.content);
  }
  return merged;
}

function toAnthropicBlock(block: ContentBlock, model: string): ContentBlockParam[] {
  switch (block.type) {
    case "thinking":
      // Thinking is tied to the model that produced it; another model's (or another API's) is not sent.
      if (block.producer.api !== "anthropic-messages" || block.producer.model !== model) return [];
      return [block.redacted ? { type: "redacted_thinking", data: block.signature } : { type: "thinking", thinking: block.text, signature: block.signature }];
    case "text":
      return block.text.length > 0 ? [{ type: "text", text: block.text }] : [];
    case "tool_call":
      return [{ type: "tool_use", id: block.id, name: block.name, input: isObject(block.input) ? block.input : {} }];
    case "tool_result":
      return [
        {
          type: "tool_result",
          tool_use_id: block.toolCallId,
          content: block.images?.length ? [{ type: "text", text: block.content }, ...block.images.map(toAnthropicImage)] : block.content,
          ...(block.isError ? { is_error: true } : {}),
        },
      ];
  }
}

// A tool result carries images as image blocks beside its text.
function toAnthropicImage(image: { mediaType: string; data: string }): Anthropic.ImageBlockParam {
  return { type: "image", source: { type: "base64", media_type: image.mediaType as Anthropic.Base64ImageSource["media_type"], data: image.data } };
}

function toolResultsFirst(content: ContentBlockParam[]): ContentBlockParam[] {
  const results = content.filter((block) => block.type === "tool_result");
  return results.length === 0 ? content : [...results, ...content.filter((block) => block.type !== "tool_result")];
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
