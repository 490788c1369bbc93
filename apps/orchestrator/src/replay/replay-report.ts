import type { ReplayReport } from "./replay-run.ts";

/** The report a person reads: "identical", or the first divergence with a diff. */
export function renderReplayReport(report: ReplayReport): string {
  const { comparison } = report;
  const lines: string[] = [];
  if (report.identical) {
    lines.push(`identical: ${comparison.compared} tool result(s) match the recording`);
  } else if (comparison.divergence) {
    const d = comparison.divergence;
    lines.push(`diverged at step ${d.stepId}, call #${d.callIndex ?? "?"} (${d.tool}): ${d.reason}`);
    lines.push(`  expected: ${d.expected ? `${d.expected.status} ${d.expected.hash ?? "(no output hash)"}` : "(no call)"}`);
    lines.push(`  actual:   ${d.actual ? `${d.actual.status} ${d.actual.hash ?? "(no output hash)"}` : "(no call)"}`);
    if (d.diff) lines.push(...d.diff.split("\n").map((line) => `  ${line}`));
  } else {
    lines.push(`diverged: every compared tool result matches, but the run ended ${report.status.replay} where the recording ended ${report.status.recorded ?? "unknown"}`);
  }
  if (comparison.maskedMatches.length > 0) {
    const fields = [...new Set(comparison.maskedMatches.flatMap((match) => match.fields))].join(", ");
    lines.push(`note: ${comparison.maskedMatches.length} output(s) differ from the recording only in volatile fields (${fields})`);
  }
  if (report.identical && report.status.replay !== report.status.recorded) {
    lines.push(`note: the run ended ${report.status.replay} (recorded: ${report.status.recorded ?? "unknown"}); with stubbed tools the evaluator's checks ran against an unchanged workspace`);
  }
  if (report.stubbed.length > 0) lines.push(`answered from the recording, not executed: ${report.stubbed.join(", ")}`);
  if (report.unusedResponses > 0) lines.push(`note: ${report.unusedResponses} recorded model response(s) were never requested`);
  return `${lines.join("\n")}\n`;
}
