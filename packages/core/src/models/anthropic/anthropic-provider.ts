import type Anthropic from "@anthropic-ai/sdk";
import { adapterResponse, completeThroughSdk, type LoadedSdk } from "../adapter-call.ts";
import { type AdapterSettings, defaultTimeoutMs, requestDefaults } from "../adapter-settings.ts";
import type { CompleteOptions, ModelProvider, ModelRequest, ModelResponse } from "../model-provider.ts";
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
  private sdk: Promise<LoadedSdk<Anthropic>> | undefined;

  constructor(settings: AdapterSettings) {
    this.settings = settings;
    this.name = settings.name;
    this.model = settings.model;
  }

  private loadSdk(): Promise<LoadedSdk<Anthropic>> {
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
    const { params, outputTool } = toAnthropicParams(request, requestDefaults(this.settings));
    const { value, retries } = await completeThroughSdk(this.settings, this.loadSdk(), options, {
      stream: (client) => this.streamOnce(client, params, options),
      request: (client) => this.requestOnce(client, params, options),
    });
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

type Attempt = Pick<ModelResponse, "content" | "stopReason" | "usage" | "model"> & { requestId?: string | undefined; longCacheWriteTokens: number };
