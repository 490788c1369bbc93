import { randomBytes } from "node:crypto";
import type { ModelMessage, ModelToolSchema } from "../../model-provider.ts";
import { FakeServer, type FakeReply, type RecordedRequest } from "../fake-model-server.ts";
import { type EmulatedModel, emulatedModels, type ThinkingType } from "./anthropic-emulated-models.ts";
import { type EmulatedMessage, errorReply, jsonReply, type ResponseBlock, sseReply, type WireUsage } from "./anthropic-emulator-encode.ts";
import {
  bodyProblem,
  combinedMessages,
  type WireBlock,
  type WireMessage,
  WireRequest,
  withoutCacheControl,
} from "./anthropic-emulator-request.ts";
import { docs, isRefusal, type Refusal, refusal } from "./anthropic-emulator-refusal.ts";
import { headerRules, lastCacheableBlock, type ModelUnderRequest, requestRules, samplingRule } from "./anthropic-emulator-rules.ts";
import { type CacheUsage, PromptCache, type PromptUnit, tokensOf } from "./anthropic-prompt-cache.ts";
import { checkThinking, type IssuedTurn, prefixField } from "./anthropic-thinking-check.ts";
import { type SignedThinking, ThinkingSigner } from "./anthropic-thinking-signer.ts";

/** A block the brain answers with; the emulator signs thinking and gives tool calls their ids. */
export type EmulatedBlock =
  | { type: "text"; text: string }
  /** `progress`: a progress update between tool calls, the one kind `display: "updates"` shows. */
  | { type: "thinking"; text: string; redacted?: boolean; progress?: boolean }
  | { type: "tool_use"; id?: string; name: string; input: Record<string, unknown> };

/** What the model is asked, in neutral terms: what a brain decides on. */
export interface EmulatedRequest {
  model: string;
  system: string;
  /** The conversation as the model reads it: thinking with its full text, dropped blocks left out. */
  messages: ModelMessage[];
  tools: ModelToolSchema[];
  /** Set when the request asked for structured output (`output_config.format`). */
  output?: { schema: Record<string, unknown> };
  thinking: { type: ThinkingType; display: string };
  effort?: string;
  maxTokens: number;
  stream: boolean;
  /** The request as sent, for assertions the neutral view does not carry. */
  body: WireRequest;
}

export interface EmulatedReply {
  content: EmulatedBlock[];
  /** Structured output; sent as the reply's one text block of JSON when the request asked for it. */
  output?: unknown;
  /** @defaultValue "tool_use" when the content calls a tool, else "end_turn" */
  stopReason?: "end_turn" | "tool_use" | "max_tokens" | "stop_sequence" | "refusal" | "pause_turn";
  /** Overrides of the usage the emulator computes (input and cache from the breakpoints it saw, output from the content). */
  usage?: Partial<CacheUsage & { outputTokens: number }>;
}

/** Decides what the emulated model answers; called only for requests every rule accepts. */
export type AnthropicBrain = (request: EmulatedRequest) => EmulatedReply | Promise<EmulatedReply>;

export interface AnthropicEmulatorOptions {
  brain: AnthropicBrain;
  /** Signs thinking blocks; two emulators with one secret accept each other's blocks (one account). @defaultValue random */
  secret?: string;
  /** Models to serve besides (or instead of) `emulatedModels`. */
  models?: Readonly<Record<string, EmulatedModel>>;
  /** The clock cache lifetimes are measured on. @defaultValue Date.now */
  now?: () => number;
}

export interface EmulatorRefusal extends Refusal {
  requestId: string;
}

/** One answered request: what was billed and returned. */
export interface EmulatorExchange {
  requestId: string;
  model: string;
  usage: WireUsage;
  stopReason: string;
  content: ResponseBlock[];
  /** Thinking blocks of the request the model could not read, dropped as the API drops them. */
  droppedThinking: { path: string; producedBy: string }[];
}

/**
 * A strict emulation of the Claude Messages API (anthropic-version
 * 2026-10-21) for `FakeServer`: it refuses what the documentation says the
 * API refuses, with the documented error body and status (each rule names
 * its page, see `anthropic-emulator-rules.ts`), and answers in today's
 * shapes: signed thinking blocks, the real event stream, usage with cache
 * reads and writes computed from the breakpoints it has seen. Signatures
 * verify only for this emulator's secret, so a thinking block that comes
 * back altered, reordered or bound to another conversation is refused.
 * What the model says is the brain's.
 */
export class AnthropicMessagesEmulator {
  readonly refusals: EmulatorRefusal[] = [];
  readonly exchanges: EmulatorExchange[] = [];
  private readonly models: Readonly<Record<string, EmulatedModel>>;
  private readonly signer: ThinkingSigner;
  private readonly cache: PromptCache;
  private readonly issued = new Map<string, IssuedTurn>();
  private counter = 0;

  constructor(private readonly options: AnthropicEmulatorOptions) {
    this.models = { ...emulatedModels, ...options.models };
    this.signer = new ThinkingSigner(options.secret ?? randomBytes(32).toString("hex"));
    this.cache = new PromptCache(options.now ?? Date.now);
  }

  /** The `FakeServer` responder. */
  readonly respond = async (request: RecordedRequest): Promise<FakeReply> => {
    this.counter += 1;
    const requestId = `req_emu_${String(this.counter).padStart(4, "0")}`;
    const checked = this.check(request);
    if (isRefusal(checked)) {
      this.refusals.push({ ...checked, requestId });
      return errorReply(checked, requestId);
    }
    const { body, messages, model, readable, dropped } = checked;
    const usage = this.cache.account(model.id, promptUnits(body, messages), model.facts.minCacheableTokens);
    const thinkingType = body.thinking?.type ?? model.facts.thinkingTypes[0] ?? "adaptive";
    // With between_tools, progress updates "still come back as thinking blocks with their summary text" (Sonnet 5.5 what's new).
    const display = thinkingType === "between_tools" ? "updates" : (body.thinking?.display ?? model.facts.defaultDisplay);
    const reply = await this.options.brain({
      model: model.id,
      system: typeof body.system === "string" ? body.system : (body.system ?? []).map((block) => block.text).join("\n"),
      messages: neutralMessages(messages, readable),
      tools: (body.tools ?? []).map((tool) => ({ name: tool.name, description: tool.description ?? "", inputSchema: tool.input_schema })),
      ...(body.output_config?.format ? { output: { schema: body.output_config.format.schema } } : {}),
      thinking: { type: thinkingType, display },
      ...(body.output_config?.effort ? { effort: body.output_config.effort } : {}),
      maxTokens: body.max_tokens,
      stream: body.stream === true,
      body,
    });
    const message = this.message(requestId, body, messages, model, reply, usage, display, thinkingType);
    this.exchanges.push({
      requestId,
      model: model.id,
      usage: message.usage,
      stopReason: message.stop_reason,
      content: message.content,
      droppedThinking: dropped,
    });
    return body.stream === true ? sseReply(message, requestId) : jsonReply(message, requestId);
  };

  private check(request: RecordedRequest):
    | Refusal
    | {
        body: WireRequest;
        messages: WireMessage[];
        model: ModelUnderRequest;
        readable: Map<string, SignedThinking>;
        dropped: { path: string; producedBy: string }[];
      } {
    const path = request.url.split("?")[0];
    if (request.method !== "POST" || path !== "/v1/messages") {
      return refusal("path", 404, `${request.method} ${path} was not found`, docs.errors, "not_found_error");
    }
    const headers = headerRules(request.headers);
    if (headers) return headers;
    const version = String(request.headers["anthropic-version"]);
    const named = typeof request.body.model === "string" ? request.body.model : "";
    const facts = this.models[named];
    const sampling = samplingRule(request.body, version, facts ? { id: named, facts } : undefined);
    if (sampling) return sampling;
    const parsed = WireRequest.safeParse(request.body, { reportInput: true });
    if (!parsed.success) return refusal("body", 400, bodyProblem(parsed.error), docs.messages);
    if (!facts) return refusal("model", 404, `model: ${parsed.data.model}`, docs.errors, "not_found_error");
    const model = { id: named, facts };
    const messages = combinedMessages(parsed.data.messages);
    const broken = requestRules(parsed.data, messages, model, request.headers);
    if (broken) return broken;
    const thinking = checkThinking(parsed.data, messages, model, this.signer, this.issued);
    if (isRefusal(thinking)) return thinking;
    return { body: parsed.data, messages, model, readable: thinking.readable, dropped: thinking.dropped };
  }

  private message(
    requestId: string,
    body: WireRequest,
    messages: readonly WireMessage[],
    model: ModelUnderRequest,
    reply: EmulatedReply,
    usage: CacheUsage,
    display: string,
    thinkingType: ThinkingType,
  ): EmulatedMessage {
    const response = `msg_emu_${requestId.slice("req_emu_".length)}`;
    const structured = body.output_config?.format !== undefined && reply.output !== undefined;
    // Thinking off leaves no thinking; between_tools leaves only the progress updates ("The model does not think before responding").
    const thinks = (block: EmulatedBlock) =>
      thinkingType !== "disabled" && (thinkingType !== "between_tools" || (block.type === "thinking" && block.progress === true));
    const blocks = reply.content.filter((block) => !(structured && block.type === "text") && (block.type !== "thinking" || thinks(block)));
    const thinkingCount = blocks.filter((block) => block.type === "thinking").length;
    const prefix = prefixField(body, messages);
    let ordinal = 0;
    let toolIndex = 0;
    const content = blocks.map((block): ResponseBlock => {
      if (block.type === "text") return { type: "text", text: block.text };
      if (block.type === "tool_use")
        return { type: "tool_use", id: block.id ?? `toolu_emu_${requestId.slice(8)}_${toolIndex++}`, name: block.name, input: block.input };
      const shows = display === "summarized" || (display === "updates" && block.progress === true);
      const signature = this.signer.sign({
        model: model.id,
        prefix,
        response,
        ordinal: ordinal++,
        count: thinkingCount,
        thinking: block.text,
        display: shows ? "summarized" : "omitted",
        redacted: block.redacted === true,
      });
      return block.redacted
        ? { type: "redacted_thinking", data: signature }
        : { type: "thinking", thinking: shows ? block.text : "", signature };
    });
    if (structured) content.push({ type: "text", text: JSON.stringify(reply.output) });
    const calls = content.filter((block) => block.type === "tool_use");
    if (calls.length > 0) {
      const turn: IssuedTurn = {
        model: model.id,
        sequence: content.flatMap((block) =>
          block.type === "thinking"
            ? [block.signature]
            : block.type === "redacted_thinking"
              ? [block.data]
              : block.type === "tool_use"
                ? [block.id]
                : [],
        ),
        toolUses: calls.map((call) => call.id),
        prefix,
      };
      for (const call of calls) this.issued.set(call.id, turn);
    }
    const billed = { ...usage, ...reply.usage };
    return {
      id: response,
      model: model.id,
      content,
      stop_reason: reply.stopReason ?? (calls.length > 0 ? "tool_use" : "end_turn"),
      usage: {
        input_tokens: billed.inputTokens,
        output_tokens: reply.usage?.outputTokens ?? tokensOf(reply.content),
        cache_read_input_tokens: billed.cacheReadTokens,
        cache_creation_input_tokens: billed.cacheWrite5mTokens + billed.cacheWrite1hTokens,
        cache_creation: { ephemeral_5m_input_tokens: billed.cacheWrite5mTokens, ephemeral_1h_input_tokens: billed.cacheWrite1hTokens },
      },
    };
  }
}

/** An emulator behind a local HTTP server; point the SDK's `baseURL` at `server.baseURL`. */
export async function startAnthropicEmulator(
  options: AnthropicEmulatorOptions,
): Promise<{ emulator: AnthropicMessagesEmulator; server: FakeServer }> {
  const emulator = new AnthropicMessagesEmulator(options);
  const server = await new FakeServer(emulator.respond).start();
  return { emulator, server };
}

/**
 * The prompt in the order it is cached (tools, system, the rendered
 * configuration, messages), each block with the breakpoint it carries; a
 * top-level cache_control marks the last cacheable block.
 */
function promptUnits(body: WireRequest, messages: readonly WireMessage[]): PromptUnit[] {
  const ttl = (control: { ttl?: "5m" | "1h" | undefined } | null | undefined) => (control ? (control.ttl ?? "5m") : undefined);
  const units: PromptUnit[] = [];
  const push = (content: unknown, breakpoint: "5m" | "1h" | undefined, run?: PromptUnit["run"]) =>
    units.push({ content, ...(breakpoint ? { breakpoint } : {}), ...(run ? { run } : {}) });
  for (const tool of body.tools ?? []) push(withoutCacheControl(tool), ttl(tool.cache_control));
  if (typeof body.system === "string") push({ type: "text", text: body.system }, undefined);
  else for (const block of body.system ?? []) push(withoutCacheControl(block), ttl(block.cache_control));
  // "The thinking configuration and the resolved effort level are rendered into the prompt itself" (thinking page).
  push(
    {
      thinking: body.thinking ?? null,
      effort: body.output_config?.effort ?? null,
      format: body.output_config?.format ?? null,
      tool_choice: body.tool_choice ?? null,
    },
    undefined,
  );
  const automatic = body.cache_control ? lastCacheableBlock(messages)?.block : undefined;
  for (const message of messages) {
    for (const block of message.content) {
      const nested =
        block.type === "tool_result" && Array.isArray(block.content)
          ? block.content.map((inner) => ttl(inner.cache_control)).find(Boolean)
          : undefined;
      const own = "cache_control" in block ? ttl(block.cache_control) : undefined;
      const marked = own ?? nested ?? (block === automatic ? ttl(body.cache_control) : undefined);
      const run = block.type === "tool_use" || block.type === "tool_result" ? block.type : undefined;
      push({ role: message.role, block: withoutCacheControl(block) }, marked, run);
    }
  }
  return units;
}

function neutralMessages(messages: readonly WireMessage[], readable: ReadonlyMap<string, SignedThinking>): ModelMessage[] {
  return messages.map((message, index) => ({
    role: message.role,
    content: message.content.flatMap((block, position): ModelMessage["content"] =>
      neutralBlock(block, readable.get(`messages.${index}.content.${position}`)),
    ),
  }));
}

function neutralBlock(block: WireBlock, signed: SignedThinking | undefined): ModelMessage["content"] {
  switch (block.type) {
    case "text":
      return [{ type: "text", text: block.text }];
    case "tool_use":
      return [{ type: "tool_call", id: block.id, name: block.name, input: block.input }];
    case "tool_result": {
      const parts = typeof block.content === "string" ? [{ type: "text" as const, text: block.content }] : (block.content ?? []);
      const images = parts.flatMap((part) =>
        part.type === "image" && typeof part.source.data === "string"
          ? [{ mediaType: String(part.source.media_type), data: part.source.data }]
          : [],
      );
      const text = parts.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n");
      return [
        {
          type: "tool_result",
          toolCallId: block.tool_use_id,
          content: text,
          ...(block.is_error ? { isError: true } : {}),
          ...(images.length ? { images } : {}),
        },
      ];
    }
    case "thinking":
    case "redacted_thinking":
      // A block without `signed` was dropped: the model never reads it.
      if (!signed) return [];
      return [
        {
          type: "thinking",
          text: signed.thinking,
          signature: block.type === "thinking" ? block.signature : block.data,
          producer: { api: "anthropic-messages", model: signed.model },
          ...(signed.redacted ? { redacted: true } : {}),
        },
      ];
    case "image":
      return [];
  }
}
