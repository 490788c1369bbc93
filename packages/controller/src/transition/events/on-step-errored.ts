import { type Draft, partialResult } from "../run-draft.ts";
import { redispatchOrEscalate } from "../lost-workers.ts";
import type { EventOf } from "./event-of.ts";

/** A step's job failed: a lost worker's step is dispatched again within its allowance; any other error fails the run. */
export function onStepErrored(draft: Draft, event: EventOf<"step.errored">): string | undefined {
  const { state } = draft;
  const step = draft.currentStep(event.stepId, event.attempt);
  if (!step) return "step is not running";
  // A job that stalled for good after its worker had sent the result: the step is past it.
  if (step.phase !== "dispatched" && step.phase !== "executing") return `step is ${step.phase}: its result was already applied`;
  if (event.cause === "worker_lost") {
    redispatchOrEscalate(draft, step, event.reason);
    return undefined;
  }
  step.phase = "failed";
  draft.trace({ kind: "step.errored", payload: { reason: event.reason } }, step);
  draft.finishRun("failed", partialResult(state, `step ${step.stepId} could not run: ${event.reason}`), event.reason);
  return undefined;
}
