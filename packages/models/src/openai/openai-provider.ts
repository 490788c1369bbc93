import OpenAI from "openai";
import { adapterResponse, completeThroughSdk, type LoadedSdk } from "../adapter-call.ts";
import { type AdapterSettings, defaultTimeoutMs, requestDefaults } from "../adapter-settings.ts";
import type { CompleteOptions, ModelProvider, ModelRequest, ModelResponse } from "../model-provider.ts";
import { parseJsonText } from "../json-from-model-text.ts";
import { type OpenAIParams, type StructuredOutputMode, toOpenAIParams } from "./openai-request.ts";
import { type CollectedReply, collectCompletion, finishReply } from "./openai-response.ts";
import { effortFor, temperatureFor } from "./openai-reasoning.ts";
import { OpenAIStreamAssembler } from "./openai-stream.ts";
import { openAIFailure } from "./openai-failure.ts";

const defaultBaseURL = "https://api.openai.com/v1";

/** Sent when a compatible server needs no key: the SDK refuses to start without one. */
const placeholderKey = "not-needed";

export interface OpenAIProviderSettings extends AdapterSettings {
  /** `openai-compatible` serves Ollama, vLLM, llama.cpp and the like at `baseURL`. @defaultValue "openai" */
  kind?: "openai" | "openai-compatible";
  /**
   * How structured output is asked for. @defaultValue "json_schema" for
   * OpenAI, "none" (the schema in the prompt) for compatible servers, whose
   * support for JSON modes varies.
   */
  structuredOutput?: StructuredOutputMode;
}

/**
 * Chat Completions through the `openai` SDK, for compatible servers and for
 * OpenAI models whose catalogue entry says `openai-chat` (or that the
 * catalogue does not know; see `openAIProviderFor`). A reasoning effort is
 * sent only where the catalogue lists it, a temperature only where the
 * model takes one. It streams (with usage in the last chunk) when the caller asks for
 * events and makes a plain request otherwise. The SDK's own retries are off:
 * Rein retries here so every provider behaves alike.
 */
export class OpenAIProvider implements ModelProvider {
  readonly kind: "openai" | "openai-compatible";
  readonly gatesAttempts = true;
  readonly name: string;
  readonly model: string;
  private readonly settings: OpenAIProviderSettings;
  private sdk: Promise<LoadedSdk<OpenAI>> | undefined;

  constructor(settings: OpenAIProviderSettings) {
    this.settings = settings;
    this.kind = settings.kind ?? "openai";
    this.name = settings.name;
    this.model = settings.model;
  }

  private loadSdk(): Promise<LoadedSdk<OpenAI>> {
    this.sdk ??= Promise.resolve({
      client: new OpenAI({
        apiKey: this.settings.apiKey || placeholderKey,
        baseURL: this.settings.baseURL ?? defaultBaseURL,
        // Explicit nulls keep OPENAI_ORG_ID and OPENAI_PROJECT_ID from the environment out of requests to other servers.
        organization: null,
        project: null,
        maxRetries: 0,
        timeout: this.settings.timeoutMs ?? defaultTimeoutMs,
      }),
      toFailure: openAIFailure,
    });
    return this.sdk;
  }

  async complete(request: ModelRequest, options: CompleteOptions = {}): Promise<ModelResponse> {
    options.signal?.throwIfAborted();
    const compatible = this.kind === "openai-compatible";
    const { temperature: kept, ...defaults } = requestDefaults(this.settings);
    const temperature = temperatureFor(this.settings, kept);
    const effort = compatible ? undefined : effortFor(this.settings);
    const params = toOpenAIParams(request, {
      ...defaults,
      ...(temperature !== undefined ? { temperature } : {}),
      ...(effort ? { reasoningEffort: effort } : {}),
      structuredOutput: this.settings.structuredOutput ?? (compatible ? "none" : "json_schema"),
      maxTokensField: compatible ? "max_tokens" : "max_completion_tokens",
    });
    const { value, retries } = await completeThroughSdk(this.settings, this.loadSdk(), options, {
      stream: (client) => this.streamOnce(client, params, options),
      request: (client) => this.requestOnce(client, params, options),
    });
    const output = request.output ? parseJsonText(value.reply.text) : undefined;
    return adapterResponse(this.settings, {
      ...finishReply(value.reply),
      model: value.reply.model,
      requestId: value.requestId,
      output,
      retries,
    });
  }

  private async requestOnce(client: OpenAI, params: OpenAIParams, options: CompleteOptions): Promise<Attempt> {
    const { data, request_id, response } = await client.chat.completions
      .create({ ...params, stream: false }, { signal: options.signal })
      .withResponse();
    return { reply: collectCompletion(data), requestId: request_id ?? undefined, headers: response.headers };
  }

  private async streamOnce(client: OpenAI, params: OpenAIParams, options: CompleteOptions): Promise<Attempt> {
    const {
      data: stream,
      request_id,
      response,
    } = await client.chat.completions
      .create({ ...params, stream: true, stream_options: { include_usage: true } }, { signal: options.signal })
      .withResponse();
    const assembler = new OpenAIStreamAssembler(options.onEvent);
    for await (const chunk of stream) assembler.accept(chunk);
    // The SDK ends iteration quietly when the request is aborted.
    options.signal?.throwIfAborted();
    return { reply: assembler.finish({ usageRequested: true }), requestId: request_id ?? undefined, headers: response.headers };
  }
}

interface Attempt {
  reply: CollectedReply;
  requestId: string | undefined;
  headers: Headers;
}
