import type { StepResult } from "@rein/contracts";
import type { EvidenceEntry, RunState, StepState } from "@rein/contracts/run";

const OUTPUT_SUMMARY_CHARS = 400;

/** The id a step attempt's output is cited by: minted here, never by a tool, so no observation can take it. */
export const outputEvidenceId = (stepId: string, attempt: number): string => `out_${stepId}_${attempt}`;

/**
 * A completed text step's output as evidence of what it produced: the text
 * is the deliverable of a goal that asks for writing, and a claim may cite
 * it there. It is never evidence of a claim about the world (the evaluator
 * counts it only for a `text` goal). Still outside text: every prompt
 * shows its summary through the presenter.
 */
export function outputEvidenceOf(step: StepState, result: StepResult): EvidenceEntry | undefined {
  if (result.status !== "completed" || step.spec.output_contract.format !== "text") return undefined;
  if (typeof result.output !== "string" || result.output.trim() === "") return undefined;
  const text = result.output.replace(/\s+/g, " ").trim();
  return {
    id: outputEvidenceId(step.stepId, step.attempt),
    stepId: step.stepId,
    tool: "step_output",
    summary: text.length > OUTPUT_SUMMARY_CHARS ? `${text.slice(0, OUTPUT_SUMMARY_CHARS)}…` : text,
    status: "ok",
    source: "output",
  };
}

/** An attempt the evaluator did not pass produced nothing a claim may rest on: its output now counts as failed. */
export function rejectOutputEvidence(state: RunState, step: StepState): void {
  const id = outputEvidenceId(step.stepId, step.attempt);
  const entry = state.evidence.find((candidate) => candidate.id === id);
  if (entry) entry.status = "error";
}
