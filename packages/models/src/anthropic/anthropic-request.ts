import type Anthropic from "@anthropic-ai/sdk";
import type { Effort, ModelEntry } from "../catalogue/model-entry.ts";
import type { ContentBlock, ModelMessage, ModelRequest } from "../model-provider.ts";
import { objectSchemaFor, outputInstruction } from "../structured-output.ts";
import { withCacheBreakpoints } from "./anthropic-cache.ts";

export interface AnthropicRequestSettings {
  model: string;
  maxTokens: number;
  /** What the catalogue knows of the model; absent for a model it does not know. */
  entry?: ModelEntry;
  effort?: Effort;
  /** The SDK's `transformJSONSchema` (loaded with the SDK): makes a schema one structured output accepts. */
  transformSchema: (schema: Record<string, unknown>) => Record<string, unknown>;
}

/**
 * How the request asked for structured output, so the reply can be read
 * back: the JSON text of an `output_config.format` reply, the input of a
 * forced tool, or JSON the prompt asked for in plain text.
 */
export type OutputMode = { kind: "format" | "prompt"; wrapped: boolean } | { kind: "tool"; name: string; wrapped: boolean };

/** Parameters without `stream`, which the provider sets per call. */
export type AnthropicParams = Omit<Anthropic.MessageCreateParamsNonStreaming, "stream">;

/**
 * Translates a neutral request into Messages API parameters as the API of
 * 2026-10-21 takes them: adaptive thinking with readable summaries and the
 * role's effort where the catalogue says the model has them; structured
 * output through `output_config.format` (a forced tool only where the
 * catalogue says the model still allows one); cache breakpoints on the
 * stable prefix; and no sampling parameter, which this API version removed
 * ("The temperature, top_p, and top_k request parameters are removed",
 * https://platform.claude.com/docs/en/api/versioning).
 */
export function toAnthropicParams(
  request: ModelRequest,
  settings: AnthropicRequestSettings,
): { params: AnthropicParams; output?: OutputMode } {
  const { entry } = settings;
  const tools: Anthropic.Tool[] = (request.tools ?? []).map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: tool.inputSchema as Anthropic.Tool.InputSchema,
  }));
  let system = request.system;
  let output: OutputMode | undefined;
  let outputConfig: Anthropic.OutputConfig = {};
  let toolChoice: Anthropic.ToolChoice | undefined;
  if (request.output) {
    const { schema, wrapped } = objectSchemaFor(request.output.schema);
    if (entry?.structuredOutput === "forced_tool") {
      tools.push({
        name: request.output.name,
        description: request.output.description ?? `Return the ${request.output.name} as this tool's input.`,
        input_schema: schema as Anthropic.Tool.InputSchema,
      });
      toolChoice = { type: "tool", name: request.output.name };
      output = { kind: "tool", name: request.output.name, wrapped };
    } else {
      const format = formatSchema(schema, settings.transformSchema);
      if (format) {
        outputConfig = { format: { type: "json_schema", schema: format } };
        output = { kind: "format", wrapped };
      } else {
        // A schema structured output cannot express (a value of any type, say) is asked for in the prompt and parsed from text.
        system = [system, outputInstruction(request.output)].filter(Boolean).join("\n\n");
        output = { kind: "prompt", wrapped: false };
      }
    }
  }
  const thinking = entry?.thinking.mode === "adaptive" ? adaptiveThinking : undefined;
  if (settings.effort && entry?.thinking.efforts.includes(settings.effort))
    outputConfig = { ...outputConfig, effort: settings.effort as Anthropic.OutputConfig["effort"] };
  const params: AnthropicParams = {
    model: settings.model,
    max_tokens: request.maxTokens ?? settings.maxTokens,
    messages: toAnthropicMessages(request.messages, settings.model),
    ...(system ? { system: [{ type: "text", text: system }] } : {}),
    ...(tools.length > 0 ? { tools } : {}),
    ...(toolChoice ? { tool_choice: toolChoice } : {}),
    ...(thinking ? { thinking } : {}),
    ...(Object.keys(outputConfig).length > 0 ? { output_config: outputConfig } : {}),
  };
  return { params: withCacheBreakpoints(params), ...(output ? { output } : {}) };
}

/**
 * Current models omit thinking text by default ("Thinking text is omitted
 * by default... To get readable summaries, set display: "summarized"",
 * https://platform.claude.com/docs/en/models/sonnet-5-5/migration-guide),
 * and the notes written between tool calls now come in thinking blocks, so
 * Rein asks for the summaries to show them as progress.
 */
const adaptiveThinking: Anthropic.ThinkingConfigAdaptive = { type: "adaptive", display: "summarized" };

function formatSchema(
  schema: Record<string, unknown>,
  transform: AnthropicRequestSettings["transformSchema"],
): Record<string, unknown> | undefined {
  try {
    return transform(schema);
  } catch {
    // transformJSONSchema throws for a node with no type and no anyOf/enum/const: "any JSON", which no format can say.
    return undefined;
  }
}

/**
 * Merges adjacent messages of one role (the API wants strict alternation),
 * so the tool results answering one assistant message travel in a single
 * user message, ahead of any text as the API requires. Empty text blocks and
 * messages left empty are dropped because the API rejects them.
 */
export function toAnthropicMessages(messages: readonly ModelMessage[], model: string): Anthropic.MessageParam[] {
  const merged: { role: "user" | "assistant"; content: Anthropic.ContentBlockParam[] }[] = [];
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

function toAnthropicBlock(block: ContentBlock, model: string): Anthropic.ContentBlockParam[] {
  switch (block.type) {
    case "thinking":
      // Thinking is tied to the model that produced it: another model's (or another API's) is left out, as is one never signed (cut off).
      if (block.producer.api !== "anthropic-messages" || block.producer.model !== model || block.signature === "") return [];
      return [
        block.redacted
          ? { type: "redacted_thinking", data: block.signature }
          : { type: "thinking", thinking: block.text, signature: block.signature },
      ];
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
  return {
    type: "image",
    source: { type: "base64", media_type: image.mediaType as Anthropic.Base64ImageSource["media_type"], data: image.data },
  };
}

function toolResultsFirst(content: Anthropic.ContentBlockParam[]): Anthropic.ContentBlockParam[] {
  const results = content.filter((block) => block.type === "tool_result");
  return results.length === 0 ? content : [...results, ...content.filter((block) => block.type !== "tool_result")];
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
