import { describe, expect, it } from "vitest";
import { baselineOf, regressionsAgainst } from "../../src/eval/baseline.ts";
import type { SuiteResult } from "../../src/eval/run-suite.ts";

const tolerance = { passRateDrop: 0, costIncreasePct: 10, tokenIncreasePct: 10 };

function result(passed: boolean[], costUsd: number, tokens = 1000): SuiteResult {
  const cases = passed.map((ok, index) => ({
    name: `c${index}`,
    passed: ok,
    status: ok ? "done" : "failed",
    steps: 1,
    tokens: tokens / passed.length,
    costUsd: costUsd / passed.length,
    checks: [],
  }));
  return { suite: "s", cases, passRate: passed.filter(Boolean).length / passed.length, totals: { steps: passed.length, tokens, costUsd } };
}

describe("baseline gate", () => {
  const baseline = baselineOf(result([true, true], 1.0));

  it("lets an equal or cheaper run through", () => {
    expect(regressionsAgainst(result([true, true], 1.05), baseline, tolerance)).toEqual([]);
  });

  it("flags a lower pass rate and names the case that broke", () => {
    expect(regressionsAgainst(result([true, false], 1.0), baseline, tolerance)).toEqual([
      "pass rate 50.0% fell below the baseline's 100.0% (tolerance 0.0%)",
      "case c1 passed in the baseline and fails now",
    ]);
  });

  it("flags cost and tokens beyond the tolerance", () => {
    const problems = regressionsAgainst(result([true, true], 1.2, 1200), baseline, tolerance);
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^total cost \$1\.2000 is over the baseline's \$1\.0000 \+ 10%/);
    expect(problems[1]).toMatch(/^total tokens 1200 are over/);
  });
});
