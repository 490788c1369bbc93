import type { Usage } from "../contracts/index.ts";
import type { Price } from "../config/config.ts";

const perMillion = (tokens: number, pricePerMTok: number): number => (tokens * pricePerMTok) / 1_000_000;

/**
 * The dollar cost of one call. `usage.inputTokens` counts uncached input only
 * (adapters subtract cache reads and writes), so each token is priced once.
 */
export function costOf(usage: Usage, price: Price): number {
  return (
    perMillion(usage.inputTokens, price.inputPerMTok) +
    perMillion(usage.outputTokens, price.outputPerMTok) +
    perMillion(usage.cacheReadTokens, price.cacheReadPerMTok) +
    perMillion(usage.cacheWriteTokens, price.cacheWritePerMTok)
  );
}

/** Config keys prices as "provider/model", with the configured provider name. */
export function priceFor(prices: Readonly<Record<string, Price>>, provider: string, model: string): Price | undefined {
  return prices[`${provider}/${model}`];
}

/** Usage with `costUsd` filled from `price`; without a price the cost stays as reported (0 by default). */
export function withCost(usage: Usage, price: Price | undefined): Usage {
  return price ? { ...usage, costUsd: costOf(usage, price) } : usage;
}
