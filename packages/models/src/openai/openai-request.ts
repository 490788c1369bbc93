import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionContentPart,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from "openai/resources/chat/completions";
import type { Effort } from "../catalogue/model-entry.ts";
import type { ModelMessage, ModelRequest } from "../model-provider.ts";
import { isStrictCompatible, outputInstruction, responseFormatName } from "../structured-output.ts";

/** How a server is asked for JSON: a schema it enforces, any JSON object, or only the prompt. */
export type StructuredOutputMode = "json_schema" | "json_object" | "none";

export interface OpenAIRequestSettings {
  model: string;
  maxTokens: number;
  temperature?: number;
  /** Sent as `reasoning_effort`: only a value the catalogue lists for the model, never to compatible servers. */
  reasoningEffort?: Effort;
  structuredOutput: StructuredOutputMode;
  /**
   * OpenAI takes `max_completion_tokens` (reasoning models refuse `max_tokens`);
   * most compatible servers know only `max_tokens`.
   */
  maxTokensField: "max_completion_tokens" | "max_tokens";
}

export type OpenAIParams = Omit<ChatCompletionCreateParamsNonStreaming, "stream">;

export function toOpenAIParams(request: ModelRequest, settings: OpenAIRequestSettings): OpenAIParams {
  let system = request.system;
  let responseFormat: OpenAIParams["response_format"];
  if (request.output) {
    if (settings.structuredOutput === "json_schema") {
      const strict = isStrictCompatible(request.output.schema);
      responseFormat = {
        type: "json_schema",
        json_schema: {
          name: responseFormatName(request.output.name),
          schema: request.output.schema,
          strict,
          ...(request.output.description ? { description: request.output.description } : {}),
        },
      };
    } else {
      // json_object and prompt-only modes enforce no schema, so the prompt states it.
      system = [system, outputInstruction(request.output)].filter(Boolean).join("\n\n");
      if (settings.structuredOutput === "json_object") responseFormat = { type: "json_object" };
    }
  }
  const tools: ChatCompletionTool[] = (request.tools ?? []).map((tool) => ({
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
  }));
  const temperature = settings.temperature;
  return {
    model: settings.model,
    messages: [...(system ? [{ role: "system" as const, content: system }] : []), ...toOpenAIMessages(request.messages)],
    [settings.maxTokensField]: request.maxTokens ?? settings.maxTokens,
    ...(tools.length > 0 ? { tools } : {}),
    ...(responseFormat ? { response_format: responseFormat } : {}),
    ...(settings.reasoningEffort ? { reasoning_effort: settings.reasoningEffort } : {}),
    ...(temperature !== undefined ? { temperature } : {}),
  };
}

/**
 * Chat Completions has one `tool` message per result, answering a call by
 * id, and they must directly follow the assistant message that made the
 * calls; so results go first and any user text after them. An assistant
 * message with only calls has `content: null`. Tool messages take only
 * text, so a result's images follow the results in a user message of image
 * parts, each headed by the call it came from.
 */
export function toOpenAIMessages(messages: readonly ModelMessage[]): ChatCompletionMessageParam[] {
  const result: ChatCompletionMessageParam[] = [];
  for (const message of messages) {
    if (message.role === "user") {
      for (const block of message.content) {
        if (block.type === "tool_result") {
          result.push({
            role: "tool",
            tool_call_id: block.toolCallId,
            // Chat Completions has no error flag on a tool result; the model reads it from the text.
            content: block.isError ? `ERROR: ${block.content}` : block.content,
          });
        }
      }
      const images = imagePartsOf(message);
      if (images.length > 0) result.push({ role: "user", content: images });
      const text = textOfBlocks(message);
      if (text) appendUser(result, text);
    } else {
      appendAssistant(result, message);
    }
  }
  return result;
}

function appendUser(result: ChatCompletionMessageParam[], text: string): void {
  const last = result.at(-1);
  if (last?.role === "user" && typeof last.content === "string") last.content = `${last.content}\n\n${text}`;
  else result.push({ role: "user", content: text });
}

function appendAssistant(result: ChatCompletionMessageParam[], message: ModelMessage): void {
  const text = textOfBlocks(message);
  const toolCalls = message.content.flatMap((block) =>
    block.type === "tool_call"
      ? [
          {
            id: block.id,
            type: "function" as const,
            // An incomplete call's raw arguments may not be JSON, and servers that re-parse history choke on that.
            function: { name: block.name, arguments: block.incomplete ? "{}" : JSON.stringify(block.input ?? {}) },
          },
        ]
      : [],
  );
  if (!text && toolCalls.length === 0) return;
  const last = result.at(-1);
  if (last?.role === "assistant") {
    if (text) last.content = typeof last.content === "string" && last.content ? `${last.content}\n\n${text}` : text;
    if (toolCalls.length > 0) last.tool_calls = [...(last.tool_calls ?? []), ...toolCalls];
    return;
  }
  const assistant: ChatCompletionAssistantMessageParam = { role: "assistant", content: text || null };
  if (toolCalls.length > 0) assistant.tool_calls = toolCalls;
  result.push(assistant);
}

function imagePartsOf(message: ModelMessage): ChatCompletionContentPart[] {
  return message.content.flatMap((block) =>
    block.type === "tool_result" && block.images?.length
      ? [
          { type: "text" as const, text: `Images from the result of tool call ${block.toolCallId}:` },
          ...block.images.map((image) => ({
            type: "image_url" as const,
            image_url: { url: `data:${image.mediaType};base64,${image.data}` },
          })),
        ]
      : [],
  );
}

function textOfBlocks(message: ModelMessage): string {
  return message.content.flatMap((block) => (block.type === "text" && block.text ? [block.text] : [])).join("\n\n");
}
