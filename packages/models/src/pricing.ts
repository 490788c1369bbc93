import type { Usage } from "@rein/contracts";
import type { Price, ProviderConfig, RoleModelConfig } from "./model-config.ts";
import { builtinPriceFor } from "./price-table.ts";

const perMillion = (tokens: number, pricePerMTok: number): number => (tokens * pricePerMTok) / 1_000_000;

/**
 * The dollar cost of one call. `usage.inputTokens` counts uncached input only
 * (adapters subtract cache reads and writes), so each token is priced once.
 * `longCacheWriteTokens` are the part of `cacheWriteTokens` written to the
 * long-lived cache (Anthropic's 1-hour, OpenAI's 12-hour), which costs more
 * than the short-lived one. A prompt (input, cache reads and writes) above
 * the price's long-context threshold bills the whole call at those rates.
 */
export function costOf(usage: Usage, price: Price, split: { longCacheWriteTokens?: number } = {}): number {
  const prompt = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
  const rates = price.longContext && prompt > price.longContext.aboveInputTokens ? price.longContext.price : price;
  const longWrites = Math.min(split.longCacheWriteTokens ?? 0, usage.cacheWriteTokens);
  return (
    perMillion(usage.inputTokens, rates.inputPerMTok) +
    perMillion(usage.outputTokens, rates.outputPerMTok) +
    perMillion(usage.cacheReadTokens, rates.cacheReadPerMTok) +
    perMillion(usage.cacheWriteTokens - longWrites, rates.cacheWritePerMTok) +
    perMillion(longWrites, rates.cacheWriteLongPerMTok ?? rates.cacheWritePerMTok)
  );
}

/**
 * The price of a model as configured: config `prices` keys "provider/model"
 * with the configured provider name and wins; otherwise the built-in table
 * for the provider's kind (by default the provider's name, which is the kind
 * for providers named "anthropic" or "openai"). Undefined means nobody
 * knows, and the call's cost cannot be counted.
 */
export function priceFor(
  prices: Readonly<Record<string, Price>>,
  provider: string,
  model: string,
  kind: string = provider,
): Price | undefined {
  return prices[`${provider}/${model}`] ?? builtinPriceFor(kind, model);
}

/** Usage with `costUsd` filled from `price`; without a price the cost stays as reported (0 by default). */
export function withCost(usage: Usage, price: Price | undefined, split: { longCacheWriteTokens?: number } = {}): Usage {
  return price ? { ...usage, costUsd: costOf(usage, price, split) } : usage;
}

/** Kinds whose calls cost money; scripted and replay models are free. */
const billedKinds = new Set(["anthropic", "openai", "openai-compatible"]);

/**
 * The provider/model pairs among `roles` that are billed but have no known
 * price, so a cost budget cannot see what they spend. Said at a run's
 * start, because a budget that never triggers is worse than none.
 */
export function unpricedModels(
  config: { providers: Readonly<Record<string, ProviderConfig>>; prices: Readonly<Record<string, Price>> },
  roles: Readonly<Record<string, Pick<RoleModelConfig, "provider" | "model">>>,
): { roles: string[]; provider: string; model: string }[] {
  const found = new Map<string, { roles: string[]; provider: string; model: string }>();
  for (const [role, choice] of Object.entries(roles)) {
    const kind = config.providers[choice.provider]?.kind;
    if (!kind || !billedKinds.has(kind) || priceFor(config.prices, choice.provider, choice.model, kind)) continue;
    const key = `${choice.provider}/${choice.model}`;
    const entry = found.get(key) ?? { roles: [], provider: choice.provider, model: choice.model };
    entry.roles.push(role);
    found.set(key, entry);
  }
  return [...found.values()];
}
