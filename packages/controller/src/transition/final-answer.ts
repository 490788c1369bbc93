import type { FinalAnswer } from "@rein/contracts";
import type { Verdict } from "@rein/contracts/run";
import { finalAnswerJobOf } from "./evaluate-jobs.ts";
import { type Draft, VERIFIED_REASON } from "./run-draft.ts";

/**
 * The planner believes the goal is met. That is a proposal, not an ending:
 * the answer goes to the evaluator, which checks every claim against all of
 * the run's evidence, and only its verdict can end the run `done`.
 */
export function proposeFinalAnswer(draft: Draft, planNo: number, answer: FinalAnswer): void {
  const { state } = draft;
  const previous = state.proposal;
  const attempt = (previous?.attempt ?? 0) + 1;
  const feedback = previous?.feedback;
  state.proposal = { planNo, attempt, answer, phase: "evaluating", ...(feedback ? { feedback } : {}) };
  draft.setStatus("evaluating");
  draft.trace({
    kind: "answer.proposed",
    payload: { planNo, attempt, proposedBy: "planner", claims: answer.claims.length, gaps: answer.gaps.length },
  });
  draft.effect({ type: "enqueue_evaluate", job: finalAnswerJobOf(state, answer, attempt, feedback) });
}

/**
 * The evaluator's verdict over the planner's answer: `done` ends the run with
 * the (possibly amended) answer; `escalate` and `fail` stop it; anything else
 * sends the planner back to work with the evaluator's feedback, which the
 * next proposal is judged against (so an unbacked claim is retried once).
 */
export function applyFinalVerdict(draft: Draft, attempt: number, verdict: Verdict): string | undefined {
  const { state } = draft;
  const proposal = state.proposal;
  if (proposal?.phase !== "evaluating" || proposal.attempt !== attempt || state.status !== "evaluating")
    return "not waiting for this verdict";
  draft.recordVerdict(verdict);
  switch (verdict.decision) {
    case "done": {
      proposal.phase = "accepted";
      const answer = verdict.answer ?? proposal.answer;
      draft.finishRun(
        "done",
        { answer, summary: answer.answer, partial: false, missing: [], claims: verdict.claims ?? [] },
        VERIFIED_REASON,
      );
      return undefined;
    }
    case "escalate":
      proposal.phase = "rejected";
      draft.escalate(verdict.reasons);
      return undefined;
    case "fail":
      proposal.phase = "rejected";
      draft.fail(verdict.reasons.join("; "));
      return undefined;
    default:
      proposal.phase = "rejected";
      proposal.feedback = verdict.feedback ?? verdict.reasons.join("; ");
      draft.requestPlan();
      return undefined;
  }
}
