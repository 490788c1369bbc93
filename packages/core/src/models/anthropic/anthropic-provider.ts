import type Anthropic from "@anthropic-ai/sdk";
import { adapterResponse, withAdapterRetries } from "../adapter-call.ts";
import { type AdapterSettings, defaultMaxTokens, defaultTimeoutMs } from "../adapter-settings.ts";
import type { CompleteOptions, ModelProvider, ModelRequest, ModelResponse } from "../model-provider.ts";
import type { anthropicFailure } from "./anthropic-failure.ts";
import { type AnthropicParams, toAnthropicParams } from "./anthropic-request.ts";
import { extractOutput, fromAnthropicMessage } from "./anthropic-response.ts";
import { AnthropicStreamAssembler } from "./anthropic-stream.ts";

const defaultBaseURL = "https://api.anthropic.com";

/**
 * The Messages API through `@anthropic-ai/sdk`. It streams when the caller
 * asks for events and makes a plain request otherwise; both paths end in the
 * same neutral response. The SDK's own retries are off: Rein retries here so
 * every provider classifies failures, backs off and reports retries alike.
 * The SDK loads at the first call: a process that never calls this provider
 * (a CLI printing a run's status) does not pay for loading it.
 */
export class AnthropicProvider implements ModelProvider {
  readonly kind = "anthropic";
  readonly name: string;
  readonly model: string;
  private readonly settings: AdapterSettings;
  private sdk: Promise<Sdk> | undefined;

  constructor(settings: AdapterSettings) {
    this.settings = settings;
    this.name = settings.name;
    this.model = settings.model;
  }

  private loadSdk(): Promise<Sdk> {
    this.sdk ??= Promise.all([import("@anthropic-ai/sdk"), import("./anthropic-failure.ts")]).then(([{ default: Anthropic }, { anthropicFailure }]) => ({
      client: new Anthropic({
        apiKey: this.settings.apiKey ?? null,
        baseURL: this.settings.baseURL ?? defaultBaseURL,
        maxRetries: 0,
        timeout: this.settings.timeoutMs ?? defaultTimeoutMs,
      }),
      toFailure: anthropicFailure,
    }));
    return this.sdk;
  }

  async complete(request: ModelRequest, options: CompleteOptions = {}): Promise<ModelResponse> {
    options.signal?.throwIfAborted();
    const { params, outputTool } = toAnthropicParams(request, {
      model: this.model,
      maxTokens: this.settings.maxTokens ?? defaultMaxTokens,
      ...(this.settings.temperature !== undefined ? { temperature: this.settings.temperature } : {}),
    });
    const { client, toFailure } = await this.loadSdk();
    const { value, retries } = await withAdapterRetries(this.settings, { baseURL: client.baseURL, toFailure }, options, () =>
      options.onEvent ? this.streamOnce(client, params, options) : this.requestOnce(client, params, options),
    );
    const { content, stopReason, output } = extractOutput(value.content, value.stopReason, outputTool);
    return adapterResponse(this.settings, { ...value, content, stopReason, output, retries });
  }

  private async requestOnce(client: Anthropic, params: AnthropicParams, options: CompleteOptions): Promise<Attempt> {
    const { data, request_id } = await client.messages
      .create({ ...params, stream: false }, { signal: options.signal })
      .withResponse();
    return { ...fromAnthropicMessage(data), model: data.model, requestId: request_id ?? undefined };
  }

  private async streamOnce(client: Anthropic, params: AnthropicParams, options: CompleteOptions): Promise<Attempt> {
    const { data: stream, request_id } = await client.messages
      .create({ ...params, stream: true }, { signal: options.signal })
      .withResponse();
    const assembler = new AnthropicStreamAssembler(options.onEvent);
    for await (const event of stream) assembler.accept(event);
    // The SDK ends iteration quietly when the request is aborted.
    options.signal?.throwIfAborted();
    return { ...assembler.finish(), requestId: request_id ?? undefined };
  }
}

type Attempt = Pick<ModelResponse, "content" | "stopReason" | "usage" | "model"> & { requestId?: string | undefined; cacheWrite1hTokens: number };

interface Sdk {
  client: Anthropic;
  toFailure: typeof anthropicFailure;
}
