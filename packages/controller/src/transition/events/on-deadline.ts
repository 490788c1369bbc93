import { type Draft, partialResult } from "../run-draft.ts";
import { exceededBudget } from "../budget-policy.ts";
import type { EventOf } from "./event-of.ts";

/** The run's scheduled wall-time limit: the run fails if its budget is spent. */
export function onDeadline(draft: Draft, _event: EventOf<"deadline">): string | undefined {
  const { state } = draft;
  const spent = exceededBudget(state, draft.settings.now, { newStep: false });
  if (!spent) return "deadline not reached";
  draft.finishRun("failed", partialResult(state, spent), spent);
  return undefined;
}
