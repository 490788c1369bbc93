import type { Draft } from "../run-draft.ts";
import type { EventOf } from "./event-of.ts";

/**
 * A new run: started under the controller's build (its steps then go only to
 * that build's workers), its workspace prepared, its deadline set, and its
 * first plan requested.
 */
export function onGoalSubmitted(draft: Draft, _event: EventOf<"goal.submitted">): string | undefined {
  const { state } = draft;
  if (state.status !== "planning" || state.planCount !== 0) return "run was already submitted";
  if (draft.settings.buildId !== undefined) state.build = draft.settings.buildId;
  draft.effect({ type: "prepare_workspace" });
  draft.effect({ type: "schedule_deadline", delayMs: state.goal.budget.maxWallMs });
  draft.requestPlan();
  return undefined;
}
