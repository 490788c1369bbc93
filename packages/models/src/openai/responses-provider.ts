import OpenAI from "openai";
import { standardTextFormat } from "openai/helpers/standard-schema";
import type { Response } from "openai/resources/responses/responses";
import { adapterResponse, completeThroughSdk, type LoadedSdk } from "../adapter-call.ts";
import { type AdapterSettings, defaultTimeoutMs, requestDefaults } from "../adapter-settings.ts";
import { parseJsonText } from "../json-from-model-text.ts";
import type { CompleteOptions, ContentBlock, ModelProvider, ModelRequest, ModelResponse } from "../model-provider.ts";
import { unwrapOutput } from "../structured-output.ts";
import { readResponse } from "./responses-reply.ts";
import { type AskedFor, type ResponsesParams, toResponsesParams } from "./responses-request.ts";
import { ResponsesStreamAssembler } from "./responses-stream.ts";
import { sdkStrictifier, type ToStrictJsonSchema, withoutAddedNulls } from "./strict-output-schema.ts";
import { effortFor, temperatureFor } from "./openai-reasoning.ts";
import { openAIResponsesFailure } from "./responses-failure.ts";

const defaultBaseURL = "https://api.openai.com/v1";

interface ResponsesSdk extends LoadedSdk<OpenAI> {
  toStrict: ToStrictJsonSchema;
}

/**
 * OpenAI's Responses API through the `openai` SDK, for the models whose
 * catalogue entry says `openai-responses` (GPT-6 and the other reasoning
 * families; `-pro` and codex models exist only there). Stateless: every
 * request carries the whole conversation with `store: false`, and a
 * reasoning model's encrypted reasoning items go back with the calls they
 * preceded. It streams when the caller asks for events and makes a plain
 * request otherwise; Rein retries, not the SDK.
 */
export class OpenAIResponsesProvider implements ModelProvider {
  readonly kind = "openai";
  readonly gatesAttempts = true;
  readonly name: string;
  readonly model: string;
  private readonly settings: AdapterSettings;
  private sdk: Promise<ResponsesSdk> | undefined;

  constructor(settings: AdapterSettings) {
    this.settings = settings;
    this.name = settings.name;
    this.model = settings.model;
  }

  private loadSdk(): Promise<ResponsesSdk> {
    this.sdk ??= Promise.resolve({
      client: new OpenAI({
        apiKey: this.settings.apiKey,
        baseURL: this.settings.baseURL ?? defaultBaseURL,
        // Explicit nulls keep OPENAI_ORG_ID and OPENAI_PROJECT_ID from the environment out of requests.
        organization: null,
        project: null,
        maxRetries: 0,
        timeout: this.settings.timeoutMs ?? defaultTimeoutMs,
      }),
      toFailure: openAIResponsesFailure,
      toStrict: sdkStrictifier(standardTextFormat),
    });
    return this.sdk;
  }

  async complete(request: ModelRequest, options: CompleteOptions = {}): Promise<ModelResponse> {
    options.signal?.throwIfAborted();
    const sdk = this.loadSdk();
    const entry = this.settings.entry;
    const defaults = requestDefaults(this.settings);
    const effort = effortFor(this.settings);
    const temperature = temperatureFor(this.settings, defaults.temperature);
    const { params, askedFor } = toResponsesParams(request, {
      model: defaults.model,
      maxTokens: defaults.maxTokens,
      ...(temperature !== undefined ? { temperature } : {}),
      ...(effort ? { effort } : {}),
      reasons: entry?.thinking.mode === "reasoning",
      structuredOutput: entry?.structuredOutput ?? "json_schema",
      toStrict: (await sdk).toStrict,
    });
    const { value, retries } = await completeThroughSdk(this.settings, sdk, options, {
      stream: (client) => this.streamOnce(client, params, options),
      request: (client) => this.requestOnce(client, params, options),
    });
    const read = readResponse(value.response, this.settings.model);
    const output = request.output ? outputOf(read.text, askedFor) : undefined;
    return adapterResponse(this.settings, {
      content: output === undefined ? read.content : withOutputText(read.content, output),
      stopReason: read.stopReason,
      usage: read.usage,
      longCacheWriteTokens: read.longCacheWriteTokens,
      model: read.model,
      requestId: value.requestId,
      output,
      retries,
    });
  }

  private async requestOnce(client: OpenAI, params: ResponsesParams, options: CompleteOptions): Promise<Attempt> {
    const { data, request_id, response } = await client.responses
      .create({ ...params, stream: false }, { signal: options.signal })
      .withResponse();
    return { response: data, requestId: request_id ?? undefined, headers: response.headers };
  }

  private async streamOnce(client: OpenAI, params: ResponsesParams, options: CompleteOptions): Promise<Attempt> {
    const {
      data: stream,
      request_id,
      response,
    } = await client.responses.create({ ...params, stream: true }, { signal: options.signal }).withResponse();
    const assembler = new ResponsesStreamAssembler(options.onEvent);
    for await (const event of stream) assembler.accept(event);
    // The SDK ends iteration quietly when the request is aborted.
    options.signal?.throwIfAborted();
    return { response: assembler.finish(), requestId: request_id ?? undefined, headers: response.headers };
  }
}

interface Attempt {
  response: Response;
  requestId: string | undefined;
  headers: Headers;
}

/**
 * The reply's text as the output read back, so that what is traced and
 * replayed (the content) says what the caller got, not the nulls strict
 * mode made the model write.
 */
function withOutputText(content: readonly ContentBlock[], output: unknown): ContentBlock[] {
  const text: ContentBlock = { type: "text", text: JSON.stringify(output) };
  let placed = false;
  const blocks = content.flatMap((block): ContentBlock[] => {
    if (block.type !== "text") return [block];
    if (placed) return [];
    placed = true;
    return [text];
  });
  return placed ? blocks : [...blocks, text];
}

/** The model's JSON read back against the schema the caller wrote: a null strict mode made it write for an optional field is an absent field. */
function outputOf(text: string, askedFor: AskedFor): unknown {
  const parsed = parseJsonText(text);
  if (!askedFor.output || parsed === undefined) return parsed;
  return unwrapOutput(withoutAddedNulls(parsed, askedFor.output.schema), askedFor.output.wrapped);
}
