import { type FakeReply, FakeServer, type RecordedRequest } from "../fake-model-server.ts";
import type { OpenAIEmulatorBrain, OpenAIEmulatorReply, OpenAIEmulatorView } from "./emulator-brain.ts";
import { OpenAIEmulatorRefusal, openAIDocs, type OpenAIRecordedRefusal } from "./emulator-refusal.ts";
import { openAIEmulatedModels, type OpenAIEmulatedModel } from "./emulated-models.ts";
import { chatReply, chatUsage } from "./chat-reply.ts";
import { readChatRequest } from "./chat-request.ts";
import { planReply } from "./planned-reply.ts";
import { type CacheUse, PromptCache } from "./prompt-cache.ts";
import { ReasoningSeal } from "./reasoning-seal.ts";
import type { IssuedCall } from "./responses-input.ts";
import { responsesReply, type ResponsesUsage } from "./responses-reply.ts";
import { readResponsesRequest } from "./responses-request.ts";

export interface OpenAIEmulatorOptions {
  /** What the model says; shown a neutral view of each accepted request. */
  brain: OpenAIEmulatorBrain;
  /** The models served. @defaultValue `openAIEmulatedModels` */
  models?: readonly OpenAIEmulatedModel[];
  /** The shortest prompt the cache keeps, in tokens. @defaultValue 1024, as the prompt caching guide says */
  cacheMinimumTokens?: number;
}

/**
 * OpenAI's API as it is served in late 2026, strictly: `POST
 * /v1/responses` and `POST /v1/chat/completions` under the documented rules
 * (each refusal names its page; see `openAIDocs`), answering in today's
 * shapes with what a pluggable brain says. Reasoning items are sealed so
 * that one sent back altered, to another model, or left out before the
 * function call it preceded is refused; prompt caching is emulated from
 * the prefixes requests repeat. Every refusal is recorded, so a test can
 * assert that a whole run sent none.
 */
export class OpenAIEmulator {
  readonly refusals: OpenAIRecordedRefusal[] = [];
  /** Each accepted request as its brain saw it. */
  readonly views: OpenAIEmulatorView[] = [];
  /** Responses created without `store: false`, which OpenAI would keep for 30 days. */
  storedResponses = 0;
  private readonly models: readonly OpenAIEmulatedModel[];
  private readonly seal = new ReasoningSeal();
  private readonly cache: PromptCache;
  private readonly issued = new Map<string, IssuedCall>();
  private serial = 0;

  constructor(private readonly options: OpenAIEmulatorOptions) {
    this.models = options.models ?? openAIEmulatedModels;
    this.cache = new PromptCache(options.cacheMinimumTokens ?? 1024);
  }

  /** A fake server answering as this emulator, its API under `/v1`. */
  start(): Promise<FakeServer> {
    return new FakeServer((request) => this.respond(request)).start("/v1");
  }

  readonly respond = async (request: RecordedRequest): Promise<FakeReply> => {
    try {
      if (!/^Bearer \S+/.test(String(request.headers.authorization ?? ""))) {
        throw new OpenAIEmulatorRefusal({
          status: 401,
          message:
            "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
          rule: openAIDocs.errorCodes,
        });
      }
      const path = request.url.split("?")[0];
      if (request.method === "POST" && path === "/v1/responses") return await this.responses(request.body);
      if (request.method === "POST" && path === "/v1/chat/completions") return await this.chat(request.body);
      throw new OpenAIEmulatorRefusal({ status: 404, message: `Invalid URL (${request.method} ${path})`, rule: openAIDocs.errorCodes });
    } catch (error) {
      if (!(error instanceof OpenAIEmulatorRefusal)) throw error;
      this.refusals.push({
        url: request.url,
        status: error.status,
        message: error.message,
        param: error.param,
        code: error.code,
        rule: error.rule,
      });
      return error.reply();
    }
  };

  private async responses(body: Record<string, unknown>): Promise<FakeReply> {
    const call = readResponsesRequest(body, { models: this.models, seal: this.seal, issued: this.issued });
    const cache = this.cacheUse(call.model, call.cacheParts, call.cacheTtl);
    const reply = await this.think(call.view);
    const planned = planReply(reply, call.view, {
      reasons: reasons(call.model, call.effort),
      summaries: call.summaries,
      strictTools: call.strictTools,
    });
    if (call.stored) this.storedResponses += 1;
    const id = this.nextId("resp");
    return responsesReply(call, planned, responsesUsage(cache, planned, reply), {
      responseId: id,
      seal: this.seal,
      issued: this.issued,
      nextId: (prefix) => this.nextId(prefix),
    });
  }

  private async chat(body: Record<string, unknown>): Promise<FakeReply> {
    const call = readChatRequest(body, { models: this.models });
    const cache = this.cacheUse(call.model, call.cacheParts, "30m");
    const reply = await this.think(call.view);
    const planned = planReply(reply, call.view, {
      reasons: reasons(call.model, call.effort),
      summaries: false,
      strictTools: call.strictTools,
    });
    planned.items = planned.items.filter((item) => item.kind !== "reasoning");
    const usage = responsesUsage(cache, planned, reply);
    const chatCache = {
      ...cache,
      inputTokens: usage.input_tokens,
      cachedTokens: usage.input_tokens_details.cached_tokens,
      cacheWriteTokens: usage.input_tokens_details.cache_write_tokens,
    };
    return chatReply(
      call,
      planned,
      chatUsage(chatCache, usage.output_tokens, usage.output_tokens_details.reasoning_tokens),
      this.nextId("chatcmpl"),
    );
  }

  private cacheUse(model: OpenAIEmulatedModel, parts: unknown[], ttl: unknown): CacheUse {
    const use = this.cache.use(model.id, parts, ttl);
    if (use.inputTokens > model.contextWindow) {
      throw new OpenAIEmulatorRefusal({
        message: `Your input exceeds the context window of this model (${model.contextWindow} tokens). Please adjust your input and try again.`,
        param: "input",
        code: "context_length_exceeded",
        rule: openAIDocs.errorCodes,
      });
    }
    return use;
  }

  private async think(view: OpenAIEmulatorView): Promise<OpenAIEmulatorReply> {
    this.views.push(view);
    return this.options.brain(view);
  }

  private nextId(prefix: string): string {
    this.serial += 1;
    return `${prefix}_${this.serial.toString(16).padStart(8, "0")}emu`;
  }
}

/** A reasoning model reasons unless its effort is `none`. */
const reasons = (model: OpenAIEmulatedModel, effort: string | undefined): boolean => model.reasoning !== undefined && effort !== "none";

/**
 * The reply's usage: the emulator's own count (input from the cache's
 * view of the prompt, output from what was written), or what the brain
 * says instead. `input_tokens` counts every input token, cached and
 * written ones included.
 */
function responsesUsage(
  cache: CacheUse,
  planned: { outputTokens: number; reasoningTokens: number },
  reply: OpenAIEmulatorReply,
): ResponsesUsage {
  const told = reply.usage ?? {};
  const cached = told.cacheReadTokens ?? cache.cachedTokens;
  const written = told.cacheWriteTokens ?? cache.cacheWriteTokens;
  const long = told.longCacheWriteTokens ?? (told.cacheWriteTokens === undefined ? cache.ttl12hTokens : 0);
  const uncached = told.inputTokens ?? cache.inputTokens - cache.cachedTokens - cache.cacheWriteTokens;
  const output = told.outputTokens ?? planned.outputTokens;
  const input = uncached + cached + written;
  return {
    input_tokens: input,
    input_tokens_details: {
      cached_tokens: cached,
      cache_write_tokens: written,
      cache_write_tokens_details: { ttl_30m_tokens: written - long, ttl_12h_tokens: long },
    },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: told.reasoningTokens ?? Math.min(planned.reasoningTokens, output) },
    total_tokens: input + output,
  };
}
