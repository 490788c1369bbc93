import type { ProviderFailure } from "./errors-classify.ts";
import { type AdapterSettings, defaultRetryPolicy } from "./adapter-settings.ts";
import type { CompleteOptions, ModelResponse } from "./model-provider.ts";
import { withCost } from "./pricing.ts";
import { withRetries } from "./retry.ts";

/** What an HTTP adapter's loaded SDK tells the retry loop: where it sends requests and how its errors read. */
export interface AdapterClient {
  baseURL: string;
  toFailure: (error: unknown) => ProviderFailure | undefined;
}

/**
 * One completion through an SDK under Rein's retries (the SDK's own are
 * off), so every adapter backs off, names itself and keeps its key out of
 * errors alike.
 */
export function withAdapterRetries<T>(
  settings: AdapterSettings,
  client: AdapterClient,
  options: CompleteOptions,
  attempt: () => Promise<T>,
): Promise<{ value: T; retries: number }> {
  return withRetries(attempt, settings.retry ?? defaultRetryPolicy, {
    provider: settings.name,
    model: settings.model,
    baseURL: client.baseURL,
    secrets: settings.apiKey ? [settings.apiKey] : [],
    signal: options.signal,
    onEvent: options.onEvent,
    toFailure: client.toFailure,
  });
}

/** What an adapter read from the provider's reply, before it is priced and named. */
export interface AdapterReply extends Pick<ModelResponse, "content" | "stopReason" | "usage" | "retries"> {
  /** The model the provider says answered; empty when it did not say. */
  model: string;
  requestId?: string | undefined;
  output?: unknown;
  /** Anthropic's 1-hour cache writes, priced apart from the 5-minute ones. */
  cacheWrite1hTokens?: number;
}

/** The neutral response every HTTP adapter ends in, priced when the config knows the model's price. */
export function adapterResponse(settings: AdapterSettings, reply: AdapterReply): ModelResponse {
  return {
    content: reply.content,
    stopReason: reply.stopReason,
    usage: withCost(reply.usage, settings.price, { cacheWrite1hTokens: reply.cacheWrite1hTokens }),
    priceKnown: settings.price !== undefined,
    provider: settings.name,
    model: reply.model || settings.model,
    ...(reply.requestId ? { requestId: reply.requestId } : {}),
    ...(reply.output !== undefined ? { output: reply.output } : {}),
    retries: reply.retries,
  };
}
