import type { RunState } from "@rein/core";

/**
 * The stop policy: which run budget, if any, is spent. Checked on every
 * event before anything is enqueued.
 */
export function exceededBudget(state: RunState, now: Date): string | undefined {
  const { budget } = state.goal;
  const { spent } = state;
  if (spent.steps >= budget.maxSteps) return `step budget spent: ${spent.steps} of ${budget.maxSteps} steps`;
  if (spent.tokens >= budget.maxTokens) return `token budget spent: ${spent.tokens} of ${budget.maxTokens} tokens`;
  if (spent.costUsd >= budget.maxCostUsd) {
    return `cost budget spent: $${spent.costUsd.toFixed(4)} of $${budget.maxCostUsd.toFixed(2)}`;
  }
  const elapsed = now.getTime() - Date.parse(state.createdAt);
  if (elapsed >= budget.maxWallMs) return `wall-time budget spent: ${elapsed} ms of ${budget.maxWallMs} ms`;
  return undefined;
}
