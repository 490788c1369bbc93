import type { ProviderFailure } from "./errors-classify.ts";
import { type AdapterSettings, defaultRetryPolicy } from "./adapter-settings.ts";
import type { CompleteOptions, ModelResponse } from "./model-provider.ts";
import { withCost } from "./pricing.ts";
import { withRetries } from "./retry.ts";

/** An adapter's SDK once loaded: its client, and how that SDK's errors read. */
export interface LoadedSdk<Client extends { baseURL: string }> {
  client: Client;
  toFailure: (error: unknown) => ProviderFailure | undefined;
}

/**
 * One completion through the SDK `sdk` resolves to, under Rein's retries
 * (the SDK's own are off), so every adapter backs off, names itself and
 * keeps its key out of errors alike. Each attempt streams when the caller
 * asks for events and is a plain request otherwise.
 */
export async function completeThroughSdk<Client extends { baseURL: string }, Attempt extends { headers?: Headers }>(
  settings: AdapterSettings,
  sdk: Promise<LoadedSdk<Client>>,
  options: CompleteOptions,
  attempt: { stream(client: Client): Promise<Attempt>; request(client: Client): Promise<Attempt> },
): Promise<{ value: Attempt; retries: number }> {
  const { client, toFailure } = await sdk;
  const once = () => (options.onEvent ? attempt.stream(client) : attempt.request(client));
  const gate = options.rateGate;
  // Each attempt, retries included, waits for the fleet's budget and tells it what the provider said.
  const gated = gate
    ? async () => {
        await gate.acquire();
        let value: Attempt;
        try {
          value = await once();
        } catch (error) {
          await gate.failed(toFailure(error));
          throw error;
        }
        await gate.succeeded(value.headers);
        return value;
      }
    : once;
  return withRetries(gated, settings.retry ?? defaultRetryPolicy, {
    waitsForRateLimits: gate !== undefined,
    provider: settings.name,
    model: settings.model,
    baseURL: client.baseURL,
    secrets: settings.apiKey ? [settings.apiKey] : [],
    signal: options.signal,
    onEvent: options.onEvent,
    toFailure,
  });
}

/** What an adapter read from the provider's reply, before it is priced and named. */
export interface AdapterReply extends Pick<ModelResponse, "content" | "stopReason" | "usage" | "retries"> {
  /** The model the provider says answered; empty when it did not say. */
  model: string;
  requestId?: string | undefined;
  output?: unknown;
  /** Long-lived cache writes (Anthropic's 1-hour, OpenAI's 12-hour), priced apart from short-lived ones. */
  longCacheWriteTokens?: number;
}

/** The neutral response every HTTP adapter ends in, priced when the config knows the model's price. */
export function adapterResponse(settings: AdapterSettings, reply: AdapterReply): ModelResponse {
  return {
    content: reply.content,
    stopReason: reply.stopReason,
    usage: withCost(reply.usage, settings.price, { longCacheWriteTokens: reply.longCacheWriteTokens }),
    priceKnown: settings.price !== undefined,
    provider: settings.name,
    model: reply.model || settings.model,
    ...(reply.requestId ? { requestId: reply.requestId } : {}),
    ...(reply.output !== undefined ? { output: reply.output } : {}),
    retries: reply.retries,
  };
}
