import type { StepState } from "@rein/contracts/run";
import { type Draft, lastSummary } from "../run-draft.ts";
import { proposeFinalAnswer } from "../final-answer.ts";
import { fanOutPlan } from "../fan-out.ts";
import type { EventOf } from "./event-of.ts";

/** The planner's answer: the plan's current step is dispatched, or a plan that says the goal is met proposes its final answer. */
export function onPlanReady(draft: Draft, event: EventOf<"plan.ready">): string | undefined {
  const { state } = draft;
  if (state.status !== "planning" || event.planNo !== state.planCount) return `not waiting for plan ${event.planNo}`;
  state.plan = event.plan;
  // Said once: by the submitter, else by the plan that starts the work (plan-checks refuse any other).
  if (state.goal.kind === undefined && event.plan.goal_kind !== undefined && !event.plan.done) state.goal.kind = event.plan.goal_kind;
  state.lessonsUsed = [...new Set([...state.lessonsUsed, ...event.lessonsUsed.map((lesson) => lesson.id)])];
  draft.trace({
    kind: "plan.ready",
    payload: {
      planNo: event.planNo,
      done: event.plan.done,
      currentStep: event.plan.current_step?.title ?? null,
      nextSteps: event.plan.next_steps,
      risks: event.plan.risks,
      lessonsUsed: event.lessonsUsed.map((lesson) => lesson.id),
      goalKind: state.goal.kind ?? null,
    },
  });
  if (event.plan.done) {
    proposeFinalAnswer(draft, event.planNo, event.plan.answer ?? { answer: lastSummary(state), claims: [], gaps: [] });
    return undefined;
  }
  if (event.plan.parallel) {
    fanOutPlan(draft, event.planNo, event.plan.parallel);
    return undefined;
  }
  const spec = event.plan.current_step;
  if (!spec) return "plan has no current step";
  const step: StepState = {
    stepId: `s${state.steps.length + 1}`,
    spec,
    attempt: 1,
    phase: "dispatched",
    parentStepId: null,
    depth: 0,
    usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 },
    resumes: 0,
    redispatches: 0,
    attemptFingerprints: [],
  };
  state.steps.push(step);
  draft.dispatch(step);
  return undefined;
}
