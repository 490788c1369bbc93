import { z } from "zod";
import type { Tolerance } from "./eval-suite.ts";
import type { SuiteResult } from "./run-suite.ts";

/** A stored suite result to gate later runs against (`--write-baseline`). */
export const Baseline = z.object({
  schemaVersion: z.literal(1),
  suite: z.string(),
  passRate: z.number().min(0).max(1),
  totals: z.object({ steps: z.number(), tokens: z.number(), costUsd: z.number() }),
  cases: z.record(z.string(), z.object({ passed: z.boolean(), steps: z.number(), tokens: z.number(), costUsd: z.number() })),
});
export type Baseline = z.infer<typeof Baseline>;

export function baselineOf(result: SuiteResult): Baseline {
  return {
    schemaVersion: 1,
    suite: result.suite,
    passRate: result.passRate,
    totals: result.totals,
    cases: Object.fromEntries(
      result.cases.map((item) => [item.name, { passed: item.passed, steps: item.steps, tokens: item.tokens, costUsd: item.costUsd }]),
    ),
  };
}

/**
 * Regressions of `result` against `baseline`: a lower pass rate, a case
 * that passed and now fails, or total cost or tokens over the tolerance.
 * Empty means the change may go in.
 */
export function regressionsAgainst(result: SuiteResult, baseline: Baseline, tolerance: Tolerance): string[] {
  const problems: string[] = [];
  if (result.passRate < baseline.passRate - tolerance.passRateDrop - 1e-9) {
    problems.push(
      `pass rate ${percent(result.passRate)} fell below the baseline's ${percent(baseline.passRate)} (tolerance ${percent(tolerance.passRateDrop)})`,
    );
  }
  for (const item of result.cases) {
    if (baseline.cases[item.name]?.passed && !item.passed) problems.push(`case ${item.name} passed in the baseline and fails now`);
  }
  const over = (now: number, before: number, pct: number) => now > before * (1 + pct / 100) + 1e-9;
  if (over(result.totals.costUsd, baseline.totals.costUsd, tolerance.costIncreasePct)) {
    problems.push(
      `total cost $${result.totals.costUsd.toFixed(4)} is over the baseline's $${baseline.totals.costUsd.toFixed(4)} + ${tolerance.costIncreasePct}%`,
    );
  }
  if (over(result.totals.tokens, baseline.totals.tokens, tolerance.tokenIncreasePct)) {
    problems.push(
      `total tokens ${result.totals.tokens} are over the baseline's ${baseline.totals.tokens} + ${tolerance.tokenIncreasePct}%`,
    );
  }
  return problems;
}

const percent = (value: number) => `${(value * 100).toFixed(1)}%`;
