import { canonicalJson, sha256 } from "@rein/contracts";

/** One block of a prompt in prompt order, as the cache sees it. */
export interface PromptUnit {
  /** What the model reads of the block (no cache_control). */
  content: unknown;
  /** The breakpoint's TTL when the block carries cache_control. */
  breakpoint?: "5m" | "1h";
  /** Runs of consecutive tool_use, and of tool_result, blocks count as one lookback position. */
  run?: "tool_use" | "tool_result";
}

export interface CacheUsage {
  inputTokens: number;
  cacheReadTokens: number;
  cacheWrite5mTokens: number;
  cacheWrite1hTokens: number;
}

const ttlMs = { "5m": 5 * 60_000, "1h": 60 * 60_000 } as const;
const lookbackPositions = 20;

/** The emulator's token count: about four characters a token, as Rein's own estimate assumes; only relative sizes matter here. */
export const tokensOf = (content: unknown): number => Math.ceil(canonicalJson(content).length / 4);

/**
 * The prompt cache of one emulated account, kept as the prompt caching page
 * describes it (https://platform.claude.com/docs/en/build-with-claude/prompt-caching):
 * a write happens only at a breakpoint and stores the hash of the prefix
 * ending there; a read looks back from each breakpoint at most 20
 * positions for a prefix an earlier request wrote; a prefix shorter than
 * the model's minimum is neither written nor read; an entry lives its TTL
 * from its last use. Billing follows "Mixing different TTLs": reads up to
 * the highest hit A, 1-hour writes from A to the last 1-hour breakpoint B,
 * 5-minute writes from B to the last breakpoint C, the rest as input.
 */
export class PromptCache {
  private readonly entries = new Map<string, { expires: number; lifetime: number }>();

  constructor(private readonly now: () => number) {}

  account(scope: string, units: readonly PromptUnit[], minCacheableTokens: number): CacheUsage {
    const at = this.now();
    const hashes: string[] = [];
    const totals: number[] = [];
    let hash = sha256(scope);
    let total = 0;
    for (const unit of units) {
      hash = sha256(`${hash}\n${canonicalJson(unit.content)}`);
      total += tokensOf(unit.content);
      hashes.push(hash);
      totals.push(total);
    }
    const breakpoints = units.flatMap((unit, index) => (unit.breakpoint ? [{ index, ttl: unit.breakpoint }] : []));
    let hit = 0;
    for (const { index } of breakpoints) {
      const found = this.lookBack(index, units, hashes, at);
      if (found !== undefined && (totals[found] ?? 0) > hit) hit = totals[found] ?? 0;
    }
    let longEnd = hit;
    let lastEnd = hit;
    for (const { index, ttl } of breakpoints) {
      const tokens = totals[index] ?? 0;
      if (tokens < minCacheableTokens || tokens <= hit) continue;
      this.entries.set(hashes[index] ?? "", { expires: at + ttlMs[ttl], lifetime: ttlMs[ttl] });
      if (ttl === "1h") longEnd = Math.max(longEnd, tokens);
      lastEnd = Math.max(lastEnd, tokens);
    }
    return {
      inputTokens: total - lastEnd,
      cacheReadTokens: hit,
      cacheWrite1hTokens: longEnd - hit,
      cacheWrite5mTokens: lastEnd - longEnd,
    };
  }

  /** The furthest position at or before `from`, within the lookback window, whose prefix is cached; its entry is refreshed. */
  private lookBack(from: number, units: readonly PromptUnit[], hashes: readonly string[], at: number): number | undefined {
    let positions = 0;
    for (let index = from; index >= 0 && positions < lookbackPositions; index -= 1) {
      const key = hashes[index] ?? "";
      const entry = this.entries.get(key);
      if (entry && entry.expires > at) {
        entry.expires = at + entry.lifetime;
        return index;
      }
      const run = units[index]?.run;
      if (!run || units[index - 1]?.run !== run) positions += 1;
    }
    return undefined;
  }
}
