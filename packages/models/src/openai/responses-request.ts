import type {
  FunctionTool,
  ResponseCreateParamsNonStreaming,
  ResponseInputItem,
  ResponseTextConfig,
} from "openai/resources/responses/responses";
import type { Effort, StructuredOutputMethod } from "../catalogue/model-entry.ts";
import type { ContentBlock, ModelMessage, ModelRequest } from "../model-provider.ts";
import { objectSchemaFor, outputInstruction, responseFormatName } from "../structured-output.ts";
import { strictOutputSchema, strictToolSchema, type ToStrictJsonSchema } from "./strict-output-schema.ts";

export interface ResponsesRequestSettings {
  model: string;
  maxTokens: number;
  temperature?: number;
  /** Sent as `reasoning.effort`; only a value the catalogue lists for the model. */
  effort?: Effort;
  /** The model reasons: ask for reasoning summaries and for encrypted reasoning to carry across turns. */
  reasons: boolean;
  structuredOutput: StructuredOutputMethod;
  toStrict: ToStrictJsonSchema;
}

export type ResponsesParams = Omit<ResponseCreateParamsNonStreaming, "stream">;

/** The structured output's schema as the caller wrote it (wrapped in an object when it was not one), which the model's JSON is read back against. */
export interface AskedFor {
  output?: { schema: Record<string, unknown>; wrapped: boolean };
}

/** Responses refuses a `max_output_tokens` under 16 (API reference). */
const minimumOutputTokens = 16;

/**
 * A neutral request as a stateless Responses request: `store: false`, so
 * nothing is kept at OpenAI, and for a reasoning model
 * `include: ["reasoning.encrypted_content"]` with reasoning summaries, so
 * its reasoning can be handed back across tool turns. The system prompt is
 * `instructions`; structured output a strict `text.format` json_schema
 * where the schema can be made strict; function tools strict where that
 * changes nothing a call may say.
 */
export function toResponsesParams(
  request: ModelRequest,
  settings: ResponsesRequestSettings,
): { params: ResponsesParams; askedFor: AskedFor } {
  const askedFor: AskedFor = {};
  let instructions = request.system;
  let text: ResponseTextConfig | undefined;
  if (request.output) {
    if (settings.structuredOutput === "json_schema") {
      const { schema, wrapped } = objectSchemaFor(request.output.schema);
      const strict = strictOutputSchema(schema, settings.toStrict);
      askedFor.output = { schema, wrapped };
      text = {
        format: {
          type: "json_schema",
          name: responseFormatName(request.output.name),
          schema: strict.schema,
          strict: strict.strict,
          ...(request.output.description ? { description: request.output.description } : {}),
        },
      };
    } else {
      // Without a schema the API enforces, the prompt states it.
      instructions = [instructions, outputInstruction(request.output)].filter(Boolean).join("\n\n");
      if (settings.structuredOutput === "json_object") text = { format: { type: "json_object" } };
    }
  }
  const tools: FunctionTool[] = (request.tools ?? []).map((tool) => {
    const strict = strictToolSchema(tool.inputSchema, settings.toStrict);
    return { type: "function", name: tool.name, description: tool.description, parameters: strict.schema, strict: strict.strict };
  });
  const params: ResponsesParams = {
    model: settings.model,
    input: inputOf(request.messages, settings.model),
    store: false,
    max_output_tokens: Math.max(minimumOutputTokens, request.maxTokens ?? settings.maxTokens),
    ...(instructions ? { instructions } : {}),
    ...(tools.length > 0 ? { tools } : {}),
    ...(text ? { text } : {}),
    ...(settings.reasons
      ? {
          reasoning: { summary: "auto" as const, ...(settings.effort ? { effort: settings.effort } : {}) },
          include: ["reasoning.encrypted_content" as const],
        }
      : {}),
    ...(settings.temperature !== undefined ? { temperature: settings.temperature } : {}),
  };
  return { params, askedFor };
}

/**
 * The conversation as input items. A tool result is a
 * `function_call_output` answering its call by `call_id` (with the result's
 * images as `input_image` parts); a call is a `function_call`; a thinking
 * block is handed back as the reasoning item it was, byte for byte, and
 * only to the model that made it, and only where the output it preceded
 * follows it (the API refuses a reasoning item without its following item).
 */
export function inputOf(messages: readonly ModelMessage[], model: string): ResponseInputItem[] {
  const input: ResponseInputItem[] = [];
  for (const message of messages) {
    if (message.role === "user") {
      for (const block of message.content) if (block.type === "tool_result") input.push(functionCallOutput(block));
      const text = message.content.flatMap((block) => (block.type === "text" && block.text ? [block.text] : [])).join("\n\n");
      if (text) input.push({ role: "user", content: text });
      continue;
    }
    message.content.forEach((block, index) => {
      if (block.type === "thinking") {
        const followed = message.content
          .slice(index + 1)
          .some((later) => later.type === "tool_call" || (later.type === "text" && later.text !== ""));
        if (followed && block.item && block.signature && block.producer.api === "openai-responses" && block.producer.model === model) {
          input.push({
            type: "reasoning",
            id: block.item.id,
            summary: block.item.summary.map((summary) => ({ type: "summary_text", text: summary })),
            encrypted_content: block.signature,
          });
        }
      } else if (block.type === "text" && block.text) {
        input.push({ role: "assistant", content: block.text });
      } else if (block.type === "tool_call") {
        // An incomplete call's raw arguments may not be JSON; it was never run and is answered as such.
        input.push({
          type: "function_call",
          call_id: block.id,
          name: block.name,
          arguments: block.incomplete ? "{}" : JSON.stringify(block.input ?? {}),
        });
      }
    });
  }
  return input;
}

function functionCallOutput(block: Extract<ContentBlock, { type: "tool_result" }>): ResponseInputItem {
  // Responses has no error flag on a function's output; the model reads it from the text.
  const text = block.isError ? `ERROR: ${block.content}` : block.content;
  if (!block.images?.length) return { type: "function_call_output", call_id: block.toolCallId, output: text };
  return {
    type: "function_call_output",
    call_id: block.toolCallId,
    output: [
      { type: "input_text", text },
      ...block.images.map((image) => ({
        type: "input_image" as const,
        image_url: `data:${image.mediaType};base64,${image.data}`,
        detail: "auto" as const,
      })),
    ],
  };
}
