import { expect } from "vitest";
import type { Usage } from "@rein/contracts";
import type { RunState } from "@rein/contracts/run";
import type { TypedTraceEvent } from "@rein/trace";
import { countedUsageOf, modelUsageOf } from "../../src/trace/usage-totals.ts";

/**
 * Every token the run spent was counted against its budget, once: the model
 * calls in the trace, the controller's `usage.counted` events and the run
 * state's totals all agree.
 */
export function expectEveryTokenCounted(state: RunState, events: readonly TypedTraceEvent[]): void {
  const spent = modelUsageOf(events);
  expect(spent.inputTokens + spent.outputTokens).toBeGreaterThan(0);
  expectSameUsage(state.usage, spent, "state vs model calls in the trace");
  expectSameUsage(countedUsageOf(events), spent, "usage.counted vs model calls in the trace");
  expect(state.spent.tokens).toBe(spent.inputTokens + spent.outputTokens);
}

function expectSameUsage(actual: Usage, expected: Usage, what: string): void {
  const { costUsd, ...tokens } = actual;
  const { costUsd: expectedCost, ...expectedTokens } = expected;
  expect(tokens, what).toEqual(expectedTokens);
  expect(costUsd, what).toBeCloseTo(expectedCost, 9);
}
