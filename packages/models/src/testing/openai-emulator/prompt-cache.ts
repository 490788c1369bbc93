import { createHash } from "node:crypto";
import { estimateTextTokens } from "../../token-estimate.ts";

/** What one request read from and wrote to the cache, in OpenAI's usage terms. */
export interface CacheUse {
  /** Every input token, cached or not. */
  inputTokens: number;
  cachedTokens: number;
  cacheWriteTokens: number;
  ttl30mTokens: number;
  ttl12hTokens: number;
}

/**
 * OpenAI's automatic prompt caching as the prompt caching guide describes
 * it: a request whose prompt starts with a prefix an earlier request of the
 * same model wrote reads those tokens from the cache; a prompt of at least
 * `minimumTokens` writes itself (its one implicit breakpoint is its end),
 * so what a request writes is what it did not read. A prefix is counted in
 * whole parts (the stable head, then each input item or message as sent),
 * so history re-sent differently by a single byte misses the cache.
 * Writes live for `30m` unless the request asked `prompt_cache_options.ttl: "12h"`.
 */
export class PromptCache {
  private readonly written = new Map<string, number>();

  constructor(private readonly minimumTokens: number) {}

  use(model: string, parts: readonly unknown[], ttl: unknown): CacheUse {
    const hash = createHash("sha256").update(model);
    let tokens = 0;
    let cachedTokens = 0;
    const prefixes: [string, number][] = [];
    for (const part of parts) {
      const text = JSON.stringify(part);
      hash.update(`\u0000${text}`);
      tokens += estimateTextTokens(text);
      const key = hash.copy().digest("hex");
      prefixes.push([key, tokens]);
      if (this.written.has(key)) cachedTokens = tokens;
    }
    if (cachedTokens < this.minimumTokens) cachedTokens = 0;
    const writes = tokens >= this.minimumTokens ? tokens - cachedTokens : 0;
    if (writes > 0) for (const [key, length] of prefixes) this.written.set(key, length);
    const long = ttl === "12h";
    return {
      inputTokens: tokens,
      cachedTokens,
      cacheWriteTokens: writes,
      ttl30mTokens: long ? 0 : writes,
      ttl12hTokens: long ? writes : 0,
    };
  }
}
