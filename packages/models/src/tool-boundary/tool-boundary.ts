import type { ContentBlock, ModelMessage } from "@rein/contracts/model";
import type { CompleteOptions, ModelRequest, ModelResponse, ModelToolSchema } from "../model-provider.ts";
import { ProviderToolNames } from "./provider-tool-names.ts";
import { providerToolSchema } from "./provider-tool-schema.ts";

/** A tool whose input schema could not be sent, and why: it was offered with a permissive one. */
export interface ToolSchemaReplaced {
  tool: string;
  problem: string;
}

/**
 * One model call seen from both sides of the provider: the request as it
 * goes out (provider-safe tool names, draft 2020-12 schemas) and the way
 * back (each tool call under the name Rein knows the tool by).
 */
export interface ToolBoundary {
  /** The request as the provider gets it. */
  readonly request: ModelRequest;
  /** Original → sent, for every name that went out changed: tools, and calls in the conversation. Empty when none did. */
  readonly toolNames: Record<string, string>;
  /** The tools offered with a permissive schema because theirs could not be sent. */
  readonly schemasReplaced: ToolSchemaReplaced[];
  /** The provider's response with every tool call named as Rein knows the tool. */
  response(response: ModelResponse): ModelResponse;
  /** `options` with streamed tool-call deltas named as Rein knows the tool. */
  options(options: CompleteOptions): CompleteOptions;
}

interface SentTools {
  /** The request's tools as they were when this was computed: a list changed in place is computed again. */
  originals: readonly ModelToolSchema[];
  tools: ModelToolSchema[];
  names: ProviderToolNames;
  /** Original → sent, for the tools whose name changed. */
  renamed: Record<string, string>;
  schemasReplaced: ToolSchemaReplaced[];
  /** The conversation last sent with these tools: the next call of a step repeats it object for object, and adds a few messages. */
  last?: SentConversation;
}

interface SentConversation {
  /** A copy: the caller's array grows after the call. */
  originals: readonly ModelMessage[];
  sent: readonly ModelMessage[];
  /** Calls to no tool of the request, by the index of their message: original → sent. */
  strays: readonly (readonly [index: number, original: string, sent: string])[];
}

const NO_TOOLS: readonly ModelToolSchema[] = Object.freeze([]);
// A step sends the same list of tools on every call: its names and schemas are worked out once.
const sentToolsOf = new WeakMap<readonly ModelToolSchema[], SentTools>();

/**
 * The boundary every model call crosses (tracedComplete): whatever a tool's
 * source (built-in, defineTool, MCP, plugin), the provider sees a name it
 * accepts and a draft 2020-12 schema, and Rein sees the original name in
 * every reply, so the surface check, the executor, fingerprints and the
 * trace never meet a provider's spelling.
 */
export async function toolBoundary(request: ModelRequest): Promise<ToolBoundary> {
  const tools = request.tools ?? NO_TOOLS;
  const sent = await sentTools(tools);
  const conversation = sentConversation(request.messages, sent);
  const { names } = sent;
  const toolNames =
    conversation.strays.length === 0
      ? sent.renamed
      : { ...sent.renamed, ...Object.fromEntries(conversation.strays.map(([, original, name]) => [original, name])) };
  const messages = conversation.sent.some((message, index) => message !== request.messages[index])
    ? [...conversation.sent]
    : request.messages;
  const unchanged = sent.tools === tools && messages === request.messages;
  return {
    request: unchanged ? request : { ...request, messages, ...(request.tools ? { tools: sent.tools } : {}) },
    toolNames,
    schemasReplaced: sent.schemasReplaced,
    response: (response) => {
      const content = originalNames(response.content, names);
      return content === response.content ? response : { ...response, content };
    },
    options: (options) => {
      const { onEvent } = options;
      if (!onEvent || names.renamed.size === 0) return options;
      return {
        ...options,
        onEvent: (event) => onEvent(event.type === "tool_call_delta" ? { ...event, name: names.original(event.name) } : event),
      };
    },
  };
}

async function sentTools(tools: readonly ModelToolSchema[]): Promise<SentTools> {
  const known = sentToolsOf.get(tools);
  if (known && known.originals.length === tools.length && known.originals.every((tool, index) => tool === tools[index])) return known;
  const names = new ProviderToolNames(tools.map((tool) => tool.name));
  const schemas = await Promise.all(tools.map((tool) => providerToolSchema(tool.inputSchema)));
  const schemasReplaced: ToolSchemaReplaced[] = [];
  let changed = false;
  const sent = tools.map((tool, index) => {
    const { schema, problem } = schemas[index] as Awaited<ReturnType<typeof providerToolSchema>>;
    if (problem !== undefined) schemasReplaced.push({ tool: tool.name, problem });
    const name = names.sent(tool.name);
    if (name === tool.name && schema === tool.inputSchema) return tool;
    changed = true;
    return { ...tool, name, inputSchema: schema };
  });
  const result: SentTools = {
    originals: [...tools],
    tools: changed ? sent : (tools as ModelToolSchema[]),
    names,
    renamed: Object.fromEntries(names.renamed),
    schemasReplaced,
  };
  sentToolsOf.set(tools, result);
  return result;
}

/**
 * The conversation with every earlier tool call under the name it goes out
 * under now, so the history and the tool list agree; a call to no tool of
 * this request gets a safe name of its own (a stray). The messages the last
 * call sent are reused, not walked again: at turn 200 that is 400 messages.
 */
function sentConversation(messages: readonly ModelMessage[], tools: SentTools): SentConversation {
  const { last, names } = tools;
  let shared = 0;
  if (last) {
    const limit = Math.min(last.originals.length, messages.length);
    while (shared < limit && messages[shared] === last.originals[shared]) shared += 1;
  }
  const sent = last ? last.sent.slice(0, shared) : [];
  const strays = last ? last.strays.filter(([index]) => index < shared) : [];
  for (let index = shared; index < messages.length; index += 1) {
    const message = messages[index] as ModelMessage;
    sent.push(
      message.role === "assistant" ? sentMessage(message, names, (original, name) => strays.push([index, original, name])) : message,
    );
  }
  const conversation = { originals: messages.slice(), sent, strays };
  tools.last = conversation;
  return conversation;
}

function sentMessage(message: ModelMessage, names: ProviderToolNames, onStray: (original: string, sent: string) => void): ModelMessage {
  let content: ContentBlock[] | undefined;
  message.content.forEach((block, index) => {
    if (block.type !== "tool_call") return;
    const name = names.sent(block.name);
    if (name === block.name) return;
    if (!names.renamed.has(block.name)) onStray(block.name, name);
    content ??= [...message.content];
    content[index] = { ...block, name };
  });
  return content ? { ...message, content } : message;
}

/** Blocks whose tool calls name a tool by its sent name, renamed back; unchanged (the same array) when none does. */
function originalNames(content: ContentBlock[], names: ProviderToolNames): ContentBlock[] {
  let out: ContentBlock[] | undefined;
  content.forEach((block, index) => {
    if (block.type !== "tool_call") return;
    const original = names.original(block.name);
    if (original === block.name) return;
    out ??= [...content];
    out[index] = { ...block, name: original };
  });
  return out ?? content;
}
