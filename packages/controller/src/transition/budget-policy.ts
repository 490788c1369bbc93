import type { RunState } from "@rein/contracts/run";

/**
 * The stop policy: which run budget, if any, is spent. A new step may start
 * only while fewer than `maxSteps` have; tokens, cost and wall time stop the
 * run once they reach their limit.
 */
export function exceededBudget(state: RunState, now: Date, options: { newStep?: boolean } = {}): string | undefined {
  const { budget } = state.goal;
  const { spent } = state;
  const stepsOver = options.newStep === false ? spent.steps > budget.maxSteps : spent.steps >= budget.maxSteps;
  if (stepsOver) return `step budget spent: ${spent.steps} of ${budget.maxSteps} steps`;
  if (spent.tokens >= budget.maxTokens) return `token budget spent: ${spent.tokens} of ${budget.maxTokens} tokens`;
  if (spent.costUsd >= budget.maxCostUsd) {
    return `cost budget spent: $${spent.costUsd.toFixed(4)} of $${budget.maxCostUsd.toFixed(2)}`;
  }
  const elapsed = now.getTime() - Date.parse(state.createdAt);
  if (elapsed >= budget.maxWallMs) return `wall-time budget spent: ${elapsed} ms of ${budget.maxWallMs} ms`;
  return undefined;
}
