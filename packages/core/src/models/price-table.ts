import type { Price } from "../config/config.ts";

/**
 * Built-in list prices in US dollars per million tokens, standard tier (no
 * batch, flex or priority discounts, no long-context or regional
 * surcharges). Config `prices` overrides any row and adds models missing
 * here. Prices change: check the sources before trusting a bill to them.
 *
 * Anthropic — source: platform.claude.com/docs/en/about-claude/pricing and
 * the per-model overview pages, read 2026-11-30. `cacheWritePerMTok` is the
 * 5-minute cache write, `cacheWriteLongPerMTok` the 1-hour one; cache reads
 * are "cache hits and refreshes". Haiku 5.5 is priced by prompt length; the
 * row is its band for prompts up to 100K tokens.
 */
const anthropic = {
  "claude-fable-5-1": row(10, 50, 0.25, 12.5, 20),
  "claude-fable-5": row(10, 50, 1, 12.5, 20),
  "claude-opus-5-5": row(4, 20, 0.2, 5, 8),
  "claude-opus-5": row(5, 25, 0.5, 6.25, 10),
  "claude-opus-4-8": row(5, 25, 0.5, 6.25, 10),
  "claude-opus-4-7": row(5, 25, 0.5, 6.25, 10),
  "claude-opus-4-6": row(5, 25, 0.5, 6.25, 10),
  "claude-opus-4-5": row(5, 25, 0.5, 6.25, 10),
  "claude-opus-4-1": row(15, 75, 1.5, 18.75, 30),
  "claude-opus-4-0": row(15, 75, 1.5, 18.75, 30),
  "claude-opus-4": row(15, 75, 1.5, 18.75, 30),
  "claude-sonnet-5-5": row(2, 10, 0.1, 2.5, 4),
  "claude-sonnet-5": row(2, 10, 0.2, 2.5, 4),
  "claude-sonnet-4-6": row(3, 15, 0.3, 3.75, 6),
  "claude-sonnet-4-5": row(3, 15, 0.3, 3.75, 6),
  "claude-sonnet-4-0": row(3, 15, 0.3, 3.75, 6),
  "claude-sonnet-4": row(3, 15, 0.3, 3.75, 6),
  "claude-haiku-5-5": row(0.1, 0.5, 0.01, 0.125, 0.2),
  "claude-haiku-4-5": row(1, 5, 0.1, 1.25, 2),
  "claude-3-5-haiku": row(0.8, 4, 0.08, 1, 1.6),
} satisfies Record<string, Price>;

/**
 * OpenAI — source: developers.openai.com/api/docs/pricing, standard tier
 * for contexts under 270K tokens, as reported on 2026-11-05 and read
 * 2026-11-30; the GPT-5, 4.1, 4o and o-series rows are the prices those
 * models kept. OpenAI does not charge for cache writes; cached input is
 * the cache-read price.
 */
const openai = {
  "gpt-5.5": row(5, 30, 0.5),
  "gpt-5.5-pro": row(30, 180, 30),
  "gpt-5.4": row(2.5, 15, 0.25),
  "gpt-5.4-mini": row(0.75, 4.5, 0.075),
  "gpt-5.4-nano": row(0.2, 1.25, 0.02),
  "gpt-5.4-pro": row(30, 180, 30),
  "gpt-5": row(1.25, 10, 0.125),
  "gpt-5-mini": row(0.25, 2, 0.025),
  "gpt-5-nano": row(0.05, 0.4, 0.005),
  "gpt-4.1": row(2, 8, 0.5),
  "gpt-4.1-mini": row(0.4, 1.6, 0.1),
  "gpt-4.1-nano": row(0.1, 0.4, 0.025),
  "gpt-4o": row(2.5, 10, 1.25),
  "gpt-4o-mini": row(0.15, 0.6, 0.075),
  o3: row(2, 8, 0.5),
  "o4-mini": row(1.1, 4.4, 0.275),
} satisfies Record<string, Price>;

const tables: Partial<Record<string, Readonly<Record<string, Price>>>> = { anthropic, openai };

/**
 * The built-in price of a model served by `kind` ("anthropic" or "openai";
 * other kinds serve models whose price only the operator knows). A dated
 * snapshot (`claude-sonnet-4-5-20250929`, `gpt-4.1-2025-04-14`) or a
 * `-latest` alias costs what its base model costs.
 */
export function builtinPriceFor(kind: string, model: string): Price | undefined {
  const table = tables[kind];
  if (!table) return undefined;
  const base = model.replace(/-(\d{8}|\d{4}-\d{2}-\d{2}|latest)$/, "");
  return table[model] ?? table[base];
}

function row(inputPerMTok: number, outputPerMTok: number, cacheReadPerMTok: number, cacheWritePerMTok = 0, cacheWriteLongPerMTok?: number): Price {
  return {
    inputPerMTok,
    outputPerMTok,
    cacheReadPerMTok,
    cacheWritePerMTok,
    ...(cacheWriteLongPerMTok !== undefined ? { cacheWriteLongPerMTok } : {}),
  };
}
