import type { Draft } from "../run-draft.ts";
import type { EventOf } from "./event-of.ts";

/** A worker took the step's job and verified its packet. */
export function onStepStarted(draft: Draft, event: EventOf<"step.started">): string | undefined {
  const step = draft.currentStep(event.stepId, event.attempt);
  if (step?.phase !== "dispatched") return "step is not waiting to start";
  step.phase = "executing";
  draft.setStatus("executing");
  draft.trace({ kind: "step.started", payload: { attempt: event.attempt } }, step);
  return undefined;
}
