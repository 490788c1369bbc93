import { type Draft, partialResult } from "../run-draft.ts";
import type { EventOf } from "./event-of.ts";

/**
 * The planner could not plan: the run fails with what it had done. No
 * `run_failed` lesson: why a planner could not answer (its provider, its
 * key, its script, its output) says nothing about how to do the goal, and
 * later plans of like goals would be given it as a lesson.
 */
export function onPlanFailed(draft: Draft, event: EventOf<"plan.failed">): string | undefined {
  const { state } = draft;
  if (state.status !== "planning" || event.planNo !== state.planCount) return `not waiting for plan ${event.planNo}`;
  draft.finishRun("failed", partialResult(state, `planning failed: ${event.reason}`), `planning failed: ${event.reason}`, {
    lesson: false,
  });
  return undefined;
}
