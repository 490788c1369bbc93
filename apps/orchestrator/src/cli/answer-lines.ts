import type { RunResult } from "@rein/contracts/run";

/**
 * A run's answer for people: each claim with how the evaluator found it
 * and the observation ids it cites, then the gaps — what the run could not
 * establish, including claims the evaluator moved there.
 */
export function answerLines(result: RunResult): string[] {
  if (!result.answer) return result.summary ? [`summary: ${result.summary}`] : [];
  const status = new Map(result.claims.map((check) => [check.text, check.status]));
  return [
    `answer: ${result.answer.answer}`,
    ...result.answer.claims.map(
      (claim) =>
        `  claim${status.has(claim.text) ? ` (${status.get(claim.text)})` : ""}: ${claim.text} [evidence: ${claim.evidence.join(", ") || "none"}]`,
    ),
    ...result.answer.gaps.map((gap) => `  gap: ${gap}`),
  ];
}
