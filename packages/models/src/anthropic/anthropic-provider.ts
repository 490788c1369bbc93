import Anthropic from "@anthropic-ai/sdk";
import { transformJSONSchema } from "@anthropic-ai/sdk/lib/transform-json-schema";
import { adapterResponse, completeThroughSdk, type LoadedSdk } from "../adapter-call.ts";
import { type AdapterSettings, defaultTimeoutMs, requestDefaults } from "../adapter-settings.ts";
import type { CompleteOptions, ModelProvider, ModelRequest, ModelResponse } from "../model-provider.ts";
import { type AnthropicParams, toAnthropicParams } from "./anthropic-request.ts";
import { fromAnthropicMessage, readOutput } from "./anthropic-response.ts";
import { AnthropicStreamAssembler } from "./anthropic-stream.ts";
import { anthropicFailure } from "./anthropic-failure.ts";

const defaultBaseURL = "https://api.anthropic.com";

/** The SDK's client, with the schema transform structured output needs. */
interface AnthropicSdk extends LoadedSdk<Anthropic> {
  transformSchema: (schema: Record<string, unknown>) => Record<string, unknown>;
}

/**
 * The Messages API through `@anthropic-ai/sdk`. It streams when the caller
 * asks for events, or when the SDK would not wait for a plain reply that
 * long, and makes a plain request otherwise; both paths end in the same
 * neutral response. The SDK's own retries are off: Rein retries here so
 * every provider classifies failures, backs off and reports retries alike.
 */
export class AnthropicProvider implements ModelProvider {
  readonly kind = "anthropic";
  readonly gatesAttempts = true;
  readonly name: string;
  readonly model: string;
  private readonly settings: AdapterSettings;
  private sdk: Promise<AnthropicSdk> | undefined;

  constructor(settings: AdapterSettings) {
    this.settings = settings;
    this.name = settings.name;
    this.model = settings.model;
  }

  /** The SDK's client, built at the first call. */
  private loadSdk(): Promise<AnthropicSdk> {
    this.sdk ??= Promise.resolve({
      client: new Anthropic({
        apiKey: this.settings.apiKey ?? null,
        baseURL: this.settings.baseURL ?? defaultBaseURL,
        maxRetries: 0,
        timeout: this.settings.timeoutMs ?? defaultTimeoutMs,
      }),
      toFailure: anthropicFailure,
      transformSchema: transformJSONSchema,
    });
    return this.sdk;
  }

  async complete(request: ModelRequest, options: CompleteOptions = {}): Promise<ModelResponse> {
    options.signal?.throwIfAborted();
    const sdk = this.loadSdk();
    const { model, maxTokens } = requestDefaults(this.settings);
    const { params, output } = toAnthropicParams(request, {
      model,
      maxTokens,
      transformSchema: (await sdk).transformSchema,
      ...(this.settings.entry ? { entry: this.settings.entry } : {}),
      ...(this.settings.effort ? { effort: this.settings.effort } : {}),
    });
    const { value, retries } = await completeThroughSdk(this.settings, sdk, options, {
      stream: (client) => this.streamOnce(client, params, options),
      request: (client) =>
        streamingRequired(client, params.max_tokens) ? this.streamOnce(client, params, options) : this.requestOnce(client, params, options),
    });
    const { content, stopReason, output: parsed } = readOutput(value.content, value.stopReason, output);
    return adapterResponse(this.settings, { ...value, content, stopReason, output: parsed, retries });
  }

  private async requestOnce(client: Anthropic, params: AnthropicParams, options: CompleteOptions): Promise<Attempt> {
    const { data, request_id, response } = await client.messages
      .create({ ...params, stream: false }, { signal: options.signal })
      .withResponse();
    return {
      ...fromAnthropicMessage(data, params.model),
      model: data.model,
      requestId: request_id ?? undefined,
      headers: response.headers,
    };
  }

  private async streamOnce(client: Anthropic, params: AnthropicParams, options: CompleteOptions): Promise<Attempt> {
    const {
      data: stream,
      request_id,
      response,
    } = await client.messages.create({ ...params, stream: true }, { signal: options.signal }).withResponse();
    const assembler = new AnthropicStreamAssembler(params.model, options.onEvent);
    for await (const event of stream) assembler.accept(event);
    // The SDK ends iteration quietly when the request is aborted.
    options.signal?.throwIfAborted();
    return { ...assembler.finish(), requestId: request_id ?? undefined, headers: response.headers };
  }
}

/**
 * The SDK's own rule ("Streaming is required for operations that may take
 * longer than 10 minutes", `calculateNonstreamingTimeout`): it applies it
 * only when no timeout is set, and Rein always sets one, so the adapter
 * asks it here and streams a long reply rather than waiting on one plain
 * response whose headers come only at the end.
 */
function streamingRequired(client: Anthropic, maxTokens: number): boolean {
  try {
    client.calculateNonstreamingTimeout(maxTokens);
    return false;
  } catch {
    return true;
  }
}

type Attempt = Pick<ModelResponse, "content" | "stopReason" | "usage" | "model"> & {
  requestId?: string | undefined;
  longCacheWriteTokens: number;
  /** The response's headers, whose rate-limit fields the rate gate reads. */
  headers?: Headers;
};
