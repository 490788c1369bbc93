import { FINAL_ANSWER_STEP_ID } from "@rein/contracts/run";
import type { Draft } from "../run-draft.ts";
import { applyChildVerdict } from "../delegation.ts";
import { applyFinalVerdict } from "../final-answer.ts";
import { applyMemberVerdict, hasRunningGroup, runningGroupOf } from "../join.ts";
import type { EventOf } from "./event-of.ts";

/** The evaluator's verdict over a step, a child step or the final answer. */
export function onVerdictReady(draft: Draft, event: EventOf<"verdict.ready">): string | undefined {
  const { state } = draft;
  if (event.stepId === FINAL_ANSWER_STEP_ID) return applyFinalVerdict(draft, event.attempt, event.verdict);
  const step = draft.currentStep(event.stepId, event.attempt);
  // While a group runs, a step's verdict may come while others still execute.
  if (step?.phase !== "evaluating" || (state.status !== "evaluating" && !hasRunningGroup(state))) return "not waiting for this verdict";
  const group = runningGroupOf(state, step);
  if (group) applyMemberVerdict(draft, step, event.verdict, group);
  else if (step.parentStepId !== null) applyChildVerdict(draft, step, event.verdict);
  else draft.applyVerdict(step, event.verdict);
  return undefined;
}
