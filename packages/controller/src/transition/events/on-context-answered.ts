import type { Draft } from "../run-draft.ts";
import { answerContext } from "../delegation.ts";
import type { EventOf } from "./event-of.ts";

/** The planner's answer to a worker's request for more evidence: the step resumes with it. */
export function onContextAnswered(draft: Draft, event: EventOf<"context.answered">): string | undefined {
  const step = draft.currentStep(event.stepId, event.attempt);
  if (!step?.awaitingContext) return "no step waits for this answer";
  answerContext(draft, step, event.evidenceIds, event.refusal);
  return undefined;
}
