import type { CaseResult, SuiteResult } from "./run-suite.ts";

export function renderCase(result: CaseResult): string {
  const head = `${result.passed ? "PASS" : "FAIL"} ${result.name.padEnd(28)} ${result.status.padEnd(10)} steps ${String(result.steps).padStart(3)}  tokens ${String(result.tokens).padStart(7)}  $${result.costUsd.toFixed(4)}`;
  const failures = result.error
    ? [`  error: ${result.error}`]
    : result.checks.filter((check) => !check.passed).map((check) => `  ✗ ${check.check}: ${check.detail}`);
  return [head, ...failures].join("\n");
}

export function renderTotals(result: SuiteResult): string {
  const passed = result.cases.filter((item) => item.passed).length;
  return `${result.suite}: ${passed}/${result.cases.length} passed (${(result.passRate * 100).toFixed(1)}%), steps ${result.totals.steps}, tokens ${result.totals.tokens}, cost $${result.totals.costUsd.toFixed(4)}`;
}
