import { FINAL_ANSWER_STEP_ID } from "@rein/contracts/run";
import type { Draft } from "../run-draft.ts";
import { applyChildVerdict } from "../delegation.ts";
import { applyFinalVerdict } from "../final-answer.ts";
import type { EventOf } from "./event-of.ts";

/** The evaluator's verdict over a step, a child step or the final answer. */
export function onVerdictReady(draft: Draft, event: EventOf<"verdict.ready">): string | undefined {
  const { state } = draft;
  if (event.stepId === FINAL_ANSWER_STEP_ID) return applyFinalVerdict(draft, event.attempt, event.verdict);
  const step = draft.currentStep(event.stepId, event.attempt);
  if (step?.phase !== "evaluating" || state.status !== "evaluating") return "not waiting for this verdict";
  if (step.parentStepId !== null) applyChildVerdict(draft, step, event.verdict);
  else draft.applyVerdict(step, event.verdict);
  return undefined;
}
