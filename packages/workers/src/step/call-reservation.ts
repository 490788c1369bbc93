import { totalTokens } from "@rein/contracts";
import type { ModelMessage, ModelToolSchema } from "@rein/contracts/model";
import { estimateRequestTokens } from "@rein/models";
import type { StepContext } from "./step-context.ts";

/** Below this many output tokens a call cannot think and answer; the step stops instead of making it. */
const SMALLEST_USEFUL_CALL = 1_024;

export type CallReservation = { kind: "reserved"; maxTokens: number } | { kind: "over_budget"; reason: string };

/**
 * What the next model call may spend, reserved before it is made: its
 * prompt (estimated) plus its output must fit in what the step's token and
 * cost budgets have left, so a step stops at its cap, not a call after it.
 * The call's `max_tokens` shrinks to fit; a call that could not answer at
 * all within what is left is not made.
 */
export function reserveCall(
  step: StepContext,
  request: { system: string; messages: readonly ModelMessage[]; tools: readonly ModelToolSchema[] },
): CallReservation {
  const { budget } = step.body;
  const { usage } = step.loop;
  const perCall = step.deps.maxTokensPerCall;
  const prompt = estimateRequestTokens(request);
  let maxTokens = Math.min(perCall, budget.maxTokens - totalTokens(usage) - prompt);
  const { price } = step.deps;
  if (price && budget.maxCostUsd !== undefined) {
    const costLeft = budget.maxCostUsd - usage.costUsd - (prompt * price.inputPerMTok) / 1_000_000;
    if (price.outputPerMTok > 0) maxTokens = Math.min(maxTokens, Math.floor((costLeft * 1_000_000) / price.outputPerMTok));
    else if (costLeft < 0) maxTokens = 0;
  }
  const floor = Math.min(SMALLEST_USEFUL_CALL, perCall);
  if (maxTokens >= floor) return { kind: "reserved", maxTokens };
  const tokensLeft = Math.max(0, budget.maxTokens - totalTokens(usage));
  const costText = budget.maxCostUsd !== undefined ? ` and $${Math.max(0, budget.maxCostUsd - usage.costUsd).toFixed(4)}` : "";
  return {
    kind: "over_budget",
    reason: `the next model call would pass the step's budget: ${tokensLeft} tokens${costText} left, its prompt alone about ${prompt} tokens, and a call needs room for at least ${floor} output tokens`,
  };
}
