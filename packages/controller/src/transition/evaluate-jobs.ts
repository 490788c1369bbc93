import type { FinalAnswer } from "@rein/contracts";
import { FINAL_ANSWER_STEP_ID, type RunState, type StepState } from "@rein/contracts/run";
import type { EvidenceFact, FinalAnswerEvaluateJob, StepEvaluateJob, StepEvaluateRequest } from "@rein/contracts/messages";

/** All of the run's evidence with each call's status: claims are checked against every observation, not a window. */
export function evidenceFactsOf(state: RunState): EvidenceFact[] {
  return state.evidence.map(({ id, stepId, tool, status, source }) => ({ id, stepId, tool, status, ...(source ? { source } : {}) }));
}

/**
 * A step's result for the evaluator (a planned step, or a delegated child
 * before it returns to its parent), without the result itself: the job
 * takes it from the step.finished event when it is sent.
 */
export function stepEvaluateRequestOf(state: RunState, step: StepState, kind: StepEvaluateJob["kind"]): StepEvaluateRequest {
  return {
    kind,
    runId: state.runId,
    stepId: step.stepId,
    attempt: step.attempt,
    spec: step.spec,
    knownEvidenceIds: state.evidence.map((entry) => entry.id),
    evidence: evidenceFactsOf(state),
    priorFingerprints: step.attemptFingerprints.slice(0, -1),
    priorFailedFingerprints: (step.attemptFailedFingerprints ?? []).slice(0, -1).flat(),
    goal: state.goal.text,
    goalKind: state.goal.kind,
    feedback: step.feedback,
    // The plan's risks are judged on the planned step; a child is held to the rules and loop detection.
    risks: kind === "child" ? [] : (state.plan?.risks ?? []),
    checkGrant: state.goal.tools.find((grant) => grant.name === "run_command"),
    policy: state.goal.policy,
  };
}

/** The planner's proposed final answer for the evaluator, with what it said about the previous proposal. */
export function finalAnswerJobOf(
  state: RunState,
  answer: FinalAnswer,
  attempt: number,
  feedback: string | undefined,
): FinalAnswerEvaluateJob {
  return {
    kind: "final",
    runId: state.runId,
    stepId: FINAL_ANSWER_STEP_ID,
    attempt,
    answer,
    evidence: evidenceFactsOf(state),
    goal: state.goal.text,
    goalKind: state.goal.kind,
    feedback,
  };
}
