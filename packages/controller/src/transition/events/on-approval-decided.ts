import type { Draft } from "../run-draft.ts";
import { hasRunningGroup } from "../join.ts";
import type { EventOf } from "./event-of.ts";

/** A person's decision on a suspended call (or its expiry): the step is dispatched again to resume with it. */
export function onApprovalDecided(draft: Draft, event: EventOf<"approval.decided">): string | undefined {
  const { state } = draft;
  const step = state.steps.find((candidate) => candidate.awaitingApprovalId === event.approvalId);
  // While a group runs, one member may wait for a person while the others go on.
  if ((state.status !== "waiting_approval" && !hasRunningGroup(state)) || !step) return "no step waits on this approval";
  state.pendingApprovals = state.pendingApprovals.filter((id) => id !== event.approvalId);
  step.awaitingApprovalId = undefined;
  step.resumeInput = { kind: "approval", approvalId: event.approvalId, decision: event.decision };
  step.resumes += 1;
  if (event.decision !== "expired") draft.effect({ type: "withdraw_approval_expiry", approvalId: event.approvalId });
  draft.trace({ kind: "step.resumed", payload: { reason: "approval", approvalId: event.approvalId, decision: event.decision } }, step);
  draft.dispatch(step, { countsAsStep: false });
  return undefined;
}
