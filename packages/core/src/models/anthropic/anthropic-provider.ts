import Anthropic from "@anthropic-ai/sdk";
import { type AdapterSettings, defaultMaxTokens, defaultRetryPolicy, defaultTimeoutMs } from "../adapter-settings.ts";
import type { CompleteOptions, ModelProvider, ModelRequest, ModelResponse } from "../model-provider.ts";
import { withCost } from "../pricing.ts";
import { withRetries } from "../retry.ts";
import { anthropicFailure } from "./anthropic-failure.ts";
import { type AnthropicParams, type OutputTool, toAnthropicParams } from "./anthropic-request.ts";
import { extractOutput, fromAnthropicMessage } from "./anthropic-response.ts";
import { AnthropicStreamAssembler } from "./anthropic-stream.ts";

const defaultBaseURL = "https://api.anthropic.com";

/**
 * The Messages API through `@anthropic-ai/sdk`. It streams when the caller
 * asks for events and makes a plain request otherwise; both paths end in the
 * same neutral response. The SDK's own retries are off: Rein retries here so
 * every provider classifies failures, backs off and reports retries alike.
 */
export class AnthropicProvider implements ModelProvider {
  readonly kind = "anthropic";
  readonly name: string;
  readonly model: string;
  private readonly client: Anthropic;
  private readonly settings: AdapterSettings;

  constructor(settings: AdapterSettings) {
    this.settings = settings;
    this.name = settings.name;
    this.model = settings.model;
    this.client = new Anthropic({
      apiKey: settings.apiKey ?? null,
      baseURL: settings.baseURL ?? defaultBaseURL,
      maxRetries: 0,
      timeout: settings.timeoutMs ?? defaultTimeoutMs,
    });
  }

  async complete(request: ModelRequest, options: CompleteOptions = {}): Promise<ModelResponse> {
    options.signal?.throwIfAborted();
    const { params, outputTool } = toAnthropicParams(request, {
      model: this.model,
      maxTokens: this.settings.maxTokens ?? defaultMaxTokens,
      ...(this.settings.temperature !== undefined ? { temperature: this.settings.temperature } : {}),
    });
    const { value, retries } = await withRetries(
      () => (options.onEvent ? this.streamOnce(params, options) : this.requestOnce(params, options)),
      this.settings.retry ?? defaultRetryPolicy,
      {
        provider: this.name,
        model: this.model,
        baseURL: this.client.baseURL,
        secrets: this.settings.apiKey ? [this.settings.apiKey] : [],
        signal: options.signal,
        onEvent: options.onEvent,
        toFailure: anthropicFailure,
      },
    );
    return this.toResponse(value, outputTool, retries);
  }

  private async requestOnce(params: AnthropicParams, options: CompleteOptions): Promise<Attempt> {
    const { data, request_id } = await this.client.messages
      .create({ ...params, stream: false }, { signal: options.signal })
      .withResponse();
    return { ...fromAnthropicMessage(data), model: data.model, requestId: request_id ?? undefined };
  }

  private async streamOnce(params: AnthropicParams, options: CompleteOptions): Promise<Attempt> {
    const { data: stream, request_id } = await this.client.messages
      .create({ ...params, stream: true }, { signal: options.signal })
      .withResponse();
    const assembler = new AnthropicStreamAssembler(options.onEvent);
    for await (const event of stream) assembler.accept(event);
    // The SDK ends iteration quietly when the request is aborted.
    options.signal?.throwIfAborted();
    return { ...assembler.finish(), requestId: request_id ?? undefined };
  }

  private toResponse(attempt: Attempt, outputTool: OutputTool | undefined, retries: number): ModelResponse {
    const { content, stopReason, output } = extractOutput(attempt.content, attempt.stopReason, outputTool);
    return {
      content,
      stopReason,
      usage: withCost(attempt.usage, this.settings.price, { cacheWrite1hTokens: attempt.cacheWrite1hTokens }),
      priceKnown: this.settings.price !== undefined,
      provider: this.name,
      model: attempt.model || this.model,
      ...(attempt.requestId ? { requestId: attempt.requestId } : {}),
      ...(output !== undefined ? { output } : {}),
      retries,
    };
  }
}

type Attempt = Pick<ModelResponse, "content" | "stopReason" | "usage" | "model"> & { requestId?: string | undefined; cacheWrite1hTokens: number };
