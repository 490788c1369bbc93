import type { Draft } from "../run-draft.ts";
import { delegate, askContext, holdChildOutcome } from "../delegation.ts";
import { fanOutDelegation } from "../fan-out.ts";
import type { EventOf } from "./event-of.ts";

/** A worker's result: a suspension (approval, delegation, context) holds the step; anything else goes to the evaluator. */
export function onStepFinished(draft: Draft, event: EventOf<"step.finished">): string | undefined {
  const { state } = draft;
  const step = draft.currentStep(event.stepId, event.attempt);
  if (!step || (step.phase !== "dispatched" && step.phase !== "executing")) return "step is not running";
  if (step.phase === "dispatched") draft.markStarted(step, event.startedAt);
  draft.recordResult(step, event.result);
  // The worker reported past its resume: a later dispatch must not hand it back.
  step.resumeInput = undefined;
  if (event.result.status === "needs_approval" && event.result.suspension?.kind === "approval") {
    step.phase = "suspended";
    step.awaitingApprovalId = event.result.suspension.approvalId;
    state.pendingApprovals = [...new Set([...state.pendingApprovals, event.result.suspension.approvalId])];
    draft.setStatus("waiting_approval");
    draft.effect({
      type: "schedule_approval_expiry",
      approvalId: event.result.suspension.approvalId,
      delayMs: draft.settings.approvalTtlMs,
    });
    draft.trace(
      {
        kind: "step.suspended",
        payload: { reason: "approval", approvalId: event.result.suspension.approvalId, tool: event.result.suspension.tool },
      },
      step,
    );
    return undefined;
  }
  if (event.result.status === "delegated" && event.result.suspension?.kind === "delegate") {
    if (event.result.suspension.more?.length) fanOutDelegation(draft, step, event.result, event.result.suspension);
    else delegate(draft, step, event.result, event.result.suspension);
    return undefined;
  }
  if (event.result.status === "needs_context" && event.result.suspension?.kind === "context") {
    askContext(draft, step, event.result.suspension);
    return undefined;
  }
  if (step.parentStepId !== null) holdChildOutcome(step, event.result);
  draft.evaluate(step, step.parentStepId === null ? "step" : "child");
  return undefined;
}
