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
    lines.push(
      `diverged: every compared tool result matches, but the run ended ${report.status.replay} where the recording ended ${report.status.recorded ?? "unknown"}`,
    );
  }
  if (comparison.maskedMatches.length > 0) {
    const fields = [...new Set(comparison.maskedMatches.flatMap((match) => match.fields))].join(", ");
    lines.push(`note: ${comparison.maskedMatches.length} output(s) differ from the recording only in volatile fields (${fields})`);
  }
  if (report.identical && report.status.replay !== report.status.recorded) {
    lines.push(
      `note: the run ended ${report.status.replay} (recorded: ${report.status.recorded ?? "unknown"}); with stubbed tools the evaluator's checks ran against an unchanged workspace`,
    );
  }
  if (report.stubbed.includes("(all)"))
    lines.push("tools: every call answered from the recording, nothing executed (--run-tools re-runs them in a fresh workspace)");
  else if (report.stubbed.length > 0) lines.push(`tools answered from the recording: ${report.stubbed.join(", ")}`);
  if (report.stubbedCalls.length > 0) lines.push(`answered from the recording, not executed: ${describeCalls(report.stubbedCalls)}`);
  const waiting = report.waitingApproval;
  if (waiting) {
    lines.push(
      `stopped: ${waiting.tool ?? "a call"} in step ${waiting.stepId ?? "?"} waits for a person's approval (${waiting.approvalId}); ` +
        "a replay never takes approvals from the recording for a call that runs: pass --approve or --deny to decide each such call",
    );
  }
  if (report.unusedResponses > 0) lines.push(`note: ${report.unusedResponses} recorded model response(s) were never requested`);
  return `${lines.join("\n")}\n`;
}

/** "run_command (s1 #1), write_file (s1 #0, s2 #3)": each stubbed call by tool, in the order first seen. */
function describeCalls(calls: ReplayReport["stubbedCalls"]): string {
  const byTool = new Map<string, string[]>();
  for (const call of calls) byTool.set(call.tool, [...(byTool.get(call.tool) ?? []), `${call.stepId ?? "-"} #${call.index}`]);
  return [...byTool].map(([tool, places]) => `${tool} (${places.join(", ")})`).join(", ");
}
