import type { ControlEvent } from "@rein/contracts/messages";
import { exceededBudget } from "./budget-policy.ts";
import { partialResult, type Draft } from "./run-draft.ts";

/*
 * The transition's prologue, run before any handler: `countSpend` counts
 * what the event's role spent (even when the event turns out stale: the
 * tokens were spent all the same), then `stopIfOverBudget` stops the run
 * when a budget is spent. Handlers never check tokens, cost or wall time
 * themselves; a new step checks only the step count.
 */

/** @returns whether the event carried any spend to count */
export function countSpend(draft: Draft, event: ControlEvent): boolean {
  switch (event.type) {
    case "plan.ready":
    case "plan.failed":
      return draft.spend(event.usage, { source: event.type, role: "planner" });
    case "context.answered":
      return draft.spend(event.usage, { source: event.type, role: "planner", stepId: event.stepId });
    case "verdict.ready":
      return draft.spend(event.usage, { source: event.type, role: "judge", stepId: event.stepId });
    case "step.finished": {
      const step = draft.currentStep(event.stepId, event.attempt);
      return step ? draft.spendStep(step, event.result.usage) : false;
    }
    default:
      return false;
  }
}

/**
 * Checked for an event that can enqueue work, and for one that spent
 * anything, so a run never stays over budget waiting for its next event.
 * @returns whether the run stopped
 */
export function stopIfOverBudget(draft: Draft, event: ControlEvent, counted: boolean): boolean {
  if (!counted && !canEnqueueWork(event)) return false;
  const spent = exceededBudget(draft.state, draft.settings.now, { newStep: false });
  if (!spent) return false;
  draft.finishRun("failed", partialResult(draft.state, spent), spent);
  return true;
}

/** Whether applying the event may plan, dispatch, resume or evaluate anything. */
function canEnqueueWork(event: ControlEvent): boolean {
  switch (event.type) {
    case "goal.submitted":
    case "plan.ready":
    case "step.finished":
    case "approval.decided":
    case "context.answered":
    case "run.resume":
    case "jobs.lost":
      return true;
    case "verdict.ready":
      return !["done", "fail", "escalate"].includes(event.verdict.decision);
    case "plan.failed":
    case "step.started":
    case "step.errored":
    case "run.cancel":
    case "deadline":
    case "event.failed":
      return false;
  }
}
