import type { Price, ProviderConfig, RoleModelConfig } from "./model-config.ts";
import { ReinError } from "@rein/contracts";
import type { AdapterSettings } from "./adapter-settings.ts";
import { AnthropicProvider } from "./anthropic/anthropic-provider.ts";
import type { ModelProvider } from "./model-provider.ts";
import { modelEntryFor } from "./catalogue/model-catalogue.ts";
import { builtinPriceFor } from "./price-table.ts";
import { OpenAIProvider } from "./openai/openai-provider.ts";
import { openAIProviderFor } from "./openai/openai-api-choice.ts";
import { ReplayProvider, type ReplayRecordings } from "./replay/replay-provider.ts";
import type { RetryPolicy } from "./retry.ts";
import { RateLimitedProvider } from "./rate-limit/rate-limited-provider.ts";
import type { RateLimiter } from "./rate-limit/rate-limiter.ts";
import { budgetFor } from "./rate-limit/rate-limits-config.ts";
import { defaultMaxTokens } from "./adapter-settings.ts";
import { ScriptedProvider } from "./scripted/scripted-provider.ts";

export interface CreateProviderOptions {
  /** Price of this provider/model (see `priceFor`); without one, the built-in table's for the kind. Responses then carry `usage.costUsd`. */
  price?: Price;
  /** Recorded responses for a `replay` provider; without them `providerConfig.script` names a JSON file of them. */
  recordings?: ReplayRecordings;
  /** Overrides of the retry policy's timing (tests inject `sleep` and `random`); `maxRetries` comes from config. */
  retry?: Omit<RetryPolicy, "maxRetries">;
  /** The fleet's shared rate budget; used when `providers.<name>.limits` is set. */
  rateLimiter?: RateLimiter;
}

/**
 * Builds the provider one role uses: the kind and endpoint from the named
 * provider's config, the model and limits from the role's. The key is read
 * from `env[providerConfig.apiKeyEnv]` here and nowhere else.
 */
export function createProvider(
  name: string,
  providerConfig: ProviderConfig,
  roleConfig: RoleModelConfig,
  env: Readonly<Record<string, string | undefined>>,
  options: CreateProviderOptions = {},
): ModelProvider {
  const provider = providerOfKind(name, providerConfig, roleConfig, env, options);
  const limits = providerConfig.limits;
  if (!limits || !options.rateLimiter) return provider;
  return new RateLimitedProvider(provider, {
    limiter: options.rateLimiter,
    budget: budgetFor(limits, roleConfig.model),
    leaseMs: limits.leaseMs,
    maxWaitMs: limits.maxWaitMs,
    defaultMaxTokens: roleConfig.maxTokens ?? modelEntryFor(providerConfig.kind, roleConfig.model)?.defaultMaxTokens ?? defaultMaxTokens,
  });
}

function providerOfKind(
  name: string,
  providerConfig: ProviderConfig,
  roleConfig: RoleModelConfig,
  env: Readonly<Record<string, string | undefined>>,
  options: CreateProviderOptions,
): ModelProvider {
  const naming = { name, model: roleConfig.model };
  switch (providerConfig.kind) {
    case "scripted":
      return providerConfig.script ? ScriptedProvider.fromFile(providerConfig.script, naming) : new ScriptedProvider({}, naming);
    case "replay":
      if (options.recordings) return new ReplayProvider(options.recordings, naming);
      if (providerConfig.script) return ReplayProvider.fromFile(providerConfig.script, naming);
      throw new ReinError(
        "config_invalid",
        `provider "${name}" is a replay provider but has no recordings: expected providers.${name}.script to name a JSON file of recorded responses`,
        { details: { provider: name } },
      );
    case "anthropic":
      return new AnthropicProvider(adapterSettings(name, providerConfig, roleConfig, requiredKey(name, providerConfig, env), options));
    case "openai":
      return openAIProviderFor(adapterSettings(name, providerConfig, roleConfig, requiredKey(name, providerConfig, env), options));
    case "openai-compatible": {
      const apiKey = providerConfig.apiKeyEnv ? env[providerConfig.apiKeyEnv] : undefined;
      return new OpenAIProvider({
        ...adapterSettings(name, providerConfig, roleConfig, apiKey || undefined, options),
        kind: "openai-compatible",
        ...(providerConfig.structuredOutput ? { structuredOutput: providerConfig.structuredOutput } : {}),
      });
    }
  }
}

function requiredKey(name: string, providerConfig: ProviderConfig, env: Readonly<Record<string, string | undefined>>): string {
  const variable = providerConfig.apiKeyEnv ?? (providerConfig.kind === "anthropic" ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY");
  const key = env[variable];
  if (!key) {
    throw new ReinError(
      "config_invalid",
      `provider "${name}" (${providerConfig.kind}) needs an API key: expected the environment variable ${variable} to be set`,
      { details: { provider: name, apiKeyEnv: variable } },
    );
  }
  return key;
}

function adapterSettings(
  name: string,
  providerConfig: ProviderConfig,
  roleConfig: RoleModelConfig,
  apiKey: string | undefined,
  options: CreateProviderOptions,
): AdapterSettings {
  const entry = modelEntryFor(providerConfig.kind, roleConfig.model);
  return {
    name,
    model: roleConfig.model,
    ...(apiKey ? { apiKey } : {}),
    ...(providerConfig.baseURL ? { baseURL: providerConfig.baseURL } : {}),
    ...(roleConfig.maxTokens !== undefined ? { maxTokens: roleConfig.maxTokens } : {}),
    ...(roleConfig.temperature !== undefined ? { temperature: roleConfig.temperature } : {}),
    ...(roleConfig.effort !== undefined ? { effort: roleConfig.effort } : {}),
    ...(entry ? { entry } : {}),
    timeoutMs: roleConfig.timeoutMs,
    retry: { ...options.retry, maxRetries: providerConfig.maxRetries },
    ...withPrice(options.price ?? builtinPriceFor(providerConfig.kind, roleConfig.model)),
  };
}

const withPrice = (price: Price | undefined): { price?: Price } => (price ? { price } : {});
