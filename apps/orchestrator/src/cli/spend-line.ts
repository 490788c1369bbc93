import type { RunState } from "@rein/contracts/run";

/**
 * What a run spent, for people: steps, tokens and cost, and the prompt
 * cache's part (tokens read from it and written to it are billed at their
 * own prices, so a cost is only understood beside them).
 */
export function spendLine(state: Pick<RunState, "spent" | "usage">): string {
  const { cacheReadTokens, cacheWriteTokens } = state.usage;
  const cache = cacheReadTokens > 0 || cacheWriteTokens > 0 ? ` (prompt cache: ${cacheReadTokens} read, ${cacheWriteTokens} written)` : "";
  return `${state.spent.steps} step${state.spent.steps === 1 ? "" : "s"}, ${state.spent.tokens} tokens${cache}, $${state.spent.costUsd.toFixed(4)}`;
}
