import { idFrom } from "@rein/contracts";
import type { Lesson, RunState, StepState } from "@rein/contracts/run";

/**
 * Lessons the controller writes, composed here so the transition stays pure.
 * The evaluator composes the third kind (a step that passed after a retry)
 * and hands it over in its verdict; every lesson is stored by the
 * controller's `record_lesson` effect. Ids derive from the run, so a
 * replayed effect writes the same lesson again.
 */
const lessonId = (runId: string, what: string): string => idFrom("lesson", `${runId}:${what}`);

/** A run that failed for good: what it was for and why it stopped. */
export function runFailedLesson(state: RunState, reason: string, now: Date): Lesson {
  const failedStep = state.steps.find((step) => step.phase !== "completed");
  return {
    schemaVersion: 1,
    lessonId: lessonId(state.runId, "failed"),
    kind: "run_failed",
    createdAt: now.toISOString(),
    runId: state.runId,
    stepId: failedStep?.stepId,
    signature: failedStep ? `${state.goal.text} — step: ${failedStep.spec.title}` : state.goal.text,
    failed: `the run failed: ${reason}`,
    worked: "",
    fingerprints: [...new Set(state.steps.flatMap((step) => (step.attemptFailedFingerprints ?? []).flat()))],
  };
}

/**
 * When a step passes after the run escalated and a person replied, the
 * escalation is resolved: what failed is why it escalated, what worked is the
 * person's instruction and the step that then passed. Only the first step to
 * pass after an escalation writes it.
 */
export function resolvedEscalationLesson(state: RunState, step: StepState, now: Date): Lesson | undefined {
  const verdicts = state.verdicts;
  const escalated = verdicts.findLastIndex((verdict) => verdict.decision === "escalate");
  if (escalated < 0 || !state.instruction) return undefined;
  const passedSince = verdicts.slice(escalated + 1, -1).some((verdict) => verdict.decision === "continue" || verdict.decision === "done");
  if (passedSince) return undefined;
  const escalation = verdicts[escalated];
  const stuck = state.steps.find((candidate) => candidate.stepId === escalation?.stepId);
  return {
    schemaVersion: 1,
    lessonId: lessonId(state.runId, `escalation-${escalated}`),
    kind: "resolved_escalation",
    createdAt: now.toISOString(),
    runId: state.runId,
    stepId: step.stepId,
    signature: `${state.goal.text} — step: ${stuck?.spec.title ?? step.spec.title}`,
    failed: `escalated: ${escalation?.reasons.join("; ") ?? "unknown"}`,
    worked: `a person said "${state.instruction}", then "${step.spec.title}" passed: ${step.summary ?? ""}`.trim(),
    fingerprints: [...new Set([...(stuck?.attemptFailedFingerprints ?? []).flat(), ...(step.attemptFingerprints.at(-1) ?? [])])],
  };
}
