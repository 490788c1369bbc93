import { z } from "zod";
import type { ContentBlock, ModelMessage, ModelToolSchema } from "../../model-provider.ts";
import type { OpenAIEmulatorView } from "./emulator-brain.ts";
import { OpenAIEmulatorRefusal, openAIDocs } from "./emulator-refusal.ts";
import { checkSampling, effectiveEffort, type EmulatedEffort, type OpenAIEmulatedModel, modelFor } from "./emulated-models.ts";
import { checkName, checkSchema, checkStrictSchema } from "./schema-rules.ts";

/** One accepted `POST /v1/chat/completions`, read. */
export interface ChatCall {
  view: OpenAIEmulatorView;
  model: OpenAIEmulatedModel;
  effort: EmulatedEffort | undefined;
  strictTools: ReadonlyMap<string, Record<string, unknown>>;
  /** `stream_options.include_usage`: the stream ends with a usage chunk. */
  streamUsage: boolean;
  cacheParts: unknown[];
}

type Body = Record<string, unknown>;
const objectOr = (value: unknown): Body => (typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Body) : {});

const Part = z.looseObject({ type: z.string(), text: z.string().optional() });
const ToolCall = z.looseObject({
  id: z.string(),
  type: z.literal("function"),
  function: z.looseObject({ name: z.string(), arguments: z.string() }),
});
const Message = z.looseObject({
  role: z.enum(["system", "developer", "user", "assistant", "tool"]),
  content: z.union([z.string(), z.array(Part), z.null()]).optional(),
  tool_calls: z.array(ToolCall).optional(),
  tool_call_id: z.string().optional(),
});
type Message = z.infer<typeof Message>;

const textOf = (content: Message["content"]): string =>
  typeof content === "string" ? content : (content ?? []).map((part) => part.text ?? "").join("");

/**
 * Reads a Chat Completions body as OpenAI serves it today. Besides the
 * model's efforts and sampling rules (shared with Responses), Chat
 * Completions has its own: reasoning models take `max_completion_tokens`,
 * not `max_tokens`; on GPT-6 and GPT-5.6 function tools are refused unless
 * the reasoning effort is `none` ("Function tools with reasoning_effort are
 * not supported ... use /v1/responses or set reasoning_effort to 'none'",
 * Using GPT-6); every assistant `tool_calls` is answered by `tool` messages
 * and a `tool` message answers one.
 */
export function readChatRequest(body: Body, context: { models: readonly OpenAIEmulatedModel[] }): ChatCall {
  const model = modelFor(context.models, body.model, "chat");
  const effort = effectiveEffort(model, body.reasoning_effort, "chat", "reasoning_effort");
  checkSampling(model, effort, body);
  if (model.reasoning && body.max_tokens !== undefined && body.max_tokens !== null) {
    throw new OpenAIEmulatorRefusal({
      message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
      param: "max_tokens",
      code: "unsupported_parameter",
      rule: openAIDocs.chatCreate,
    });
  }
  if (body.stream_options !== undefined && body.stream_options !== null && body.stream !== true) {
    throw new OpenAIEmulatorRefusal({
      message: "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
      param: "stream_options",
      rule: openAIDocs.chatCreate,
    });
  }
  const { tools, strictTools } = toolsOf(body.tools);
  if (tools.length > 0 && model.reasoning?.chatToolsOnlyWithoutEffort && effort !== "none") {
    throw new OpenAIEmulatorRefusal({
      message: `Function tools with reasoning_effort are not supported for ${model.id} in /v1/chat/completions. To use function tools, use /v1/responses or set reasoning_effort to 'none'.`,
      param: "reasoning_effort",
      rule: openAIDocs.deploymentChecklist,
    });
  }
  const { messages, instructions } = messagesOf(body.messages);
  const output = formatOf(body.response_format, body.messages);
  const maxTokens = body.max_completion_tokens ?? body.max_tokens;
  return {
    view: {
      api: "chat",
      model: model.id,
      instructions,
      messages,
      tools,
      ...(output ? { output } : {}),
      ...(effort ? { effort } : {}),
      ...(typeof maxTokens === "number" ? { maxOutputTokens: maxTokens } : {}),
      stream: body.stream === true,
    },
    model,
    effort,
    strictTools,
    streamUsage: objectOr(body.stream_options).include_usage === true,
    cacheParts: [
      { tools: body.tools ?? null, response_format: body.response_format ?? null },
      ...(Array.isArray(body.messages) ? body.messages : []),
    ],
  };
}

function toolsOf(value: unknown): { tools: ModelToolSchema[]; strictTools: Map<string, Record<string, unknown>> } {
  const strictTools = new Map<string, Record<string, unknown>>();
  if (!Array.isArray(value)) return { tools: [], strictTools };
  const tools = value.map((tool, index): ModelToolSchema => {
    const fields = objectOr(objectOr(tool).function);
    checkName(fields.name, `tools[${index}].function.name`);
    const name = fields.name as string;
    const parameters = (fields.parameters ?? { type: "object", properties: {} }) as Record<string, unknown>;
    // Chat Completions' functions are strict only when they say so.
    if (fields.strict === true) {
      checkStrictSchema(parameters, `function '${name}'`, `tools[${index}].function.parameters`);
      strictTools.set(name, parameters);
    } else {
      checkSchema(parameters, `function '${name}'`, `tools[${index}].function.parameters`, openAIDocs.functionCalling);
    }
    return { name, description: typeof fields.description === "string" ? fields.description : "", inputSchema: parameters };
  });
  return { tools, strictTools };
}

function messagesOf(value: unknown): { messages: ModelMessage[]; instructions: string } {
  if (!Array.isArray(value) || value.length === 0) {
    throw new OpenAIEmulatorRefusal({
      message: "'messages' must contain at least one message.",
      param: "messages",
      rule: openAIDocs.chatCreate,
    });
  }
  const messages: ModelMessage[] = [];
  const instructions: string[] = [];
  let awaiting: { index: number; ids: Set<string> } | undefined;
  const append = (role: "user" | "assistant", block: ContentBlock) => {
    const last = messages.at(-1);
    if (last?.role === role) last.content.push(block);
    else messages.push({ role, content: [block] });
  };
  value.forEach((raw, index) => {
    const parsed = Message.safeParse(raw);
    if (!parsed.success)
      throw new OpenAIEmulatorRefusal({
        message: `Invalid 'messages[${index}]': ${z.prettifyError(parsed.error)}`,
        param: `messages[${index}]`,
        code: "invalid_value",
        rule: openAIDocs.chatCreate,
      });
    const message = parsed.data;
    if (message.role === "tool") {
      if (!awaiting || !message.tool_call_id || !awaiting.ids.delete(message.tool_call_id)) {
        throw new OpenAIEmulatorRefusal({
          message: "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          param: `messages.[${index}].role`,
          rule: openAIDocs.functionCalling,
        });
      }
      append("user", { type: "tool_result", toolCallId: message.tool_call_id, content: textOf(message.content) });
      return;
    }
    if (awaiting && awaiting.ids.size > 0) {
      throw new OpenAIEmulatorRefusal({
        message: `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...awaiting.ids].join(", ")}`,
        param: `messages.[${awaiting.index}].role`,
        rule: openAIDocs.functionCalling,
      });
    }
    awaiting = undefined;
    const text = textOf(message.content);
    if (message.role === "system" || message.role === "developer") instructions.push(text);
    else if (message.role === "user") append("user", { type: "text", text });
    else {
      if (text) append("assistant", { type: "text", text });
      for (const call of message.tool_calls ?? [])
        append("assistant", { type: "tool_call", id: call.id, name: call.function.name, input: parseArguments(call.function.arguments) });
      if (message.tool_calls?.length) awaiting = { index, ids: new Set(message.tool_calls.map((call) => call.id)) };
    }
  });
  if (awaiting && awaiting.ids.size > 0) {
    throw new OpenAIEmulatorRefusal({
      message: `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...awaiting.ids].join(", ")}`,
      param: `messages.[${awaiting.index}].role`,
      rule: openAIDocs.functionCalling,
    });
  }
  return { messages, instructions: instructions.join("\n\n") };
}

function formatOf(format: unknown, messages: unknown): OpenAIEmulatorView["output"] {
  const fields = objectOr(format);
  if (fields.type === undefined || fields.type === "text") return undefined;
  if (fields.type === "json_object") {
    if (!/json/i.test(JSON.stringify(messages))) {
      throw new OpenAIEmulatorRefusal({
        message: "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.",
        param: "messages",
        rule: openAIDocs.structuredOutputs,
      });
    }
    return { name: "json_object", schema: { type: "object" }, strict: false };
  }
  const jsonSchema = objectOr(fields.json_schema);
  checkName(jsonSchema.name, "response_format.json_schema.name");
  const name = jsonSchema.name as string;
  const strict = jsonSchema.strict === true;
  if (strict) checkStrictSchema(jsonSchema.schema, `response_format '${name}'`, "response_format.json_schema.schema");
  else
    checkSchema(jsonSchema.schema, `response_format '${name}'`, "response_format.json_schema.schema", openAIDocs.structuredOutputs, {
      rootObject: false,
    });
  return { name, schema: jsonSchema.schema as Record<string, unknown>, strict };
}

function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}
