import { z } from "zod";
import type { ContentBlock, ModelMessage } from "../../model-provider.ts";
import { OpenAIEmulatorRefusal, openAIDocs } from "./emulator-refusal.ts";
import type { ReasoningSeal } from "./reasoning-seal.ts";

/** What the emulator remembers of a function call it made: its item id and the reasoning item that preceded it. */
export interface IssuedCall {
  itemId: string;
  reasoningId?: string;
  model: string;
}

const Part = z.looseObject({ type: z.string(), text: z.string().optional(), refusal: z.string().optional() });
const Message = z.looseObject({
  type: z.literal("message").optional(),
  role: z.enum(["user", "assistant", "system", "developer"]),
  content: z.union([z.string(), z.array(Part)]),
});
const Reasoning = z.looseObject({
  type: z.literal("reasoning"),
  id: z.string(),
  summary: z.array(z.looseObject({ type: z.literal("summary_text"), text: z.string() })),
  encrypted_content: z.string().nullish(),
});
const FunctionCall = z.looseObject({
  type: z.literal("function_call"),
  call_id: z.string(),
  name: z.string(),
  arguments: z.string(),
  id: z.string().optional(),
});
const FunctionCallOutput = z.looseObject({
  type: z.literal("function_call_output"),
  call_id: z.string(),
  output: z.union([z.string(), z.array(Part)]),
});

const invalid = (index: number, error: z.ZodError): OpenAIEmulatorRefusal =>
  new OpenAIEmulatorRefusal({
    message: `Invalid 'input[${index}]': ${z.prettifyError(error)}`,
    param: `input[${index}]`,
    code: "invalid_value",
    rule: openAIDocs.responsesCreate,
  });

function parsed<T>(schema: z.ZodType<T>, item: unknown, index: number): T {
  const result = schema.safeParse(item);
  if (!result.success) throw invalid(index, result.error);
  return result.data;
}

const textOfParts = (content: string | z.infer<typeof Part>[]): string =>
  typeof content === "string" ? content : content.map((part) => part.text ?? part.refusal ?? "").join("");

/**
 * Reads `input` as the Responses API does (function calling guide,
 * reasoning guide, conversation state guide), refusing what OpenAI
 * refuses: a `function_call_output` whose call is not in the input, a
 * `function_call` left without an output, a reasoning item sent without
 * its encrypted content (nothing is stored under `store: false`) or not
 * followed by the output it preceded, encrypted content that does not
 * verify, and a function call the emulator made after a reasoning item
 * sent back without that item. Returns the conversation as neutral
 * messages and the system or developer text found in it.
 */
export function readResponsesInput(
  input: unknown,
  context: { model: string; seal: ReasoningSeal; issued: ReadonlyMap<string, IssuedCall> },
): { messages: ModelMessage[]; instructions: string[] } {
  const items: unknown[] = typeof input === "string" ? [{ role: "user", content: input }] : Array.isArray(input) ? input : [];
  if (items.length === 0) {
    throw new OpenAIEmulatorRefusal({
      message: "Missing required parameter: 'input'.",
      param: "input",
      code: "missing_required_parameter",
      rule: openAIDocs.responsesCreate,
    });
  }
  const messages: ModelMessage[] = [];
  const instructions: string[] = [];
  const reasoningSeen = new Set<string>();
  const calls = new Set<string>();
  const answered = new Set<string>();
  const append = (role: "user" | "assistant", block: ContentBlock) => {
    const last = messages.at(-1);
    if (last?.role === role) last.content.push(block);
    else messages.push({ role, content: [block] });
  };
  items.forEach((item, index) => {
    const type = typeof item === "object" && item !== null && "type" in item ? item.type : "message";
    if (type === "message") {
      const message = parsed(Message, item, index);
      const text = textOfParts(message.content);
      if (message.role === "system" || message.role === "developer") instructions.push(text);
      else append(message.role, { type: "text", text });
    } else if (type === "reasoning") {
      const reasoning = parsed(Reasoning, item, index);
      if (!reasoning.encrypted_content) {
        throw new OpenAIEmulatorRefusal({
          status: 404,
          message: `Item with id '${reasoning.id}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`,
          param: "input",
          rule: openAIDocs.reasoning,
        });
      }
      const summary = reasoning.summary.map((part) => part.text);
      const model = context.seal.open(reasoning.id, reasoning.encrypted_content, summary, context.model);
      const next = items[index + 1] as { type?: unknown; role?: unknown } | undefined;
      const followed = next !== undefined && (next.type === "function_call" || next.type === "reasoning" || next.role === "assistant");
      if (!followed) {
        throw new OpenAIEmulatorRefusal({
          message: `Item '${reasoning.id}' of type 'reasoning' was provided without its required following item.`,
          param: "input",
          rule: openAIDocs.reasoning,
        });
      }
      reasoningSeen.add(reasoning.id);
      append("assistant", {
        type: "thinking",
        text: summary.join("\n\n"),
        signature: reasoning.encrypted_content,
        producer: { api: "openai-responses", model },
        item: { id: reasoning.id, summary },
      });
    } else if (type === "function_call") {
      const call = parsed(FunctionCall, item, index);
      const issued = context.issued.get(call.call_id);
      if (issued?.reasoningId && issued.model === context.model && !reasoningSeen.has(issued.reasoningId)) {
        throw new OpenAIEmulatorRefusal({
          message: `Item '${issued.itemId}' of type 'function_call' was provided without its required 'reasoning' item: '${issued.reasoningId}'.`,
          param: "input",
          rule: openAIDocs.reasoning,
        });
      }
      calls.add(call.call_id);
      append("assistant", { type: "tool_call", id: call.call_id, name: call.name, input: argumentsOf(call.arguments) });
    } else if (type === "function_call_output") {
      const output = parsed(FunctionCallOutput, item, index);
      if (!calls.has(output.call_id)) {
        throw new OpenAIEmulatorRefusal({
          message: `No tool call found for function call output with call_id ${output.call_id}.`,
          param: "input",
          rule: openAIDocs.functionCalling,
        });
      }
      answered.add(output.call_id);
      append("user", { type: "tool_result", toolCallId: output.call_id, content: textOfParts(output.output) });
    } else if (type === "item_reference") {
      throw new OpenAIEmulatorRefusal({
        status: 404,
        message: `Item with id '${String((item as { id?: unknown }).id)}' not found.`,
        param: "input",
        rule: openAIDocs.conversationState,
      });
    } else {
      throw new OpenAIEmulatorRefusal({
        message: `Invalid value: '${String(type)}'. This emulator reads message, reasoning, function_call and function_call_output items.`,
        param: `input[${index}].type`,
        code: "invalid_value",
        rule: openAIDocs.responsesCreate,
      });
    }
  });
  const unanswered = [...calls].find((callId) => !answered.has(callId));
  if (unanswered !== undefined) {
    throw new OpenAIEmulatorRefusal({
      message: `No tool output found for function call ${unanswered}.`,
      param: "input",
      rule: openAIDocs.functionCalling,
    });
  }
  return { messages, instructions };
}

function argumentsOf(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}
