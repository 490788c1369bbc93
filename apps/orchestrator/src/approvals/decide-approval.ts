import type { Approval } from "@rein/contracts/run";
import type { ApprovalSigner } from "@rein/signing";
import type { ApprovalDecisionInput, ApprovalStore, ReinRuntime } from "@rein/runtime";

/** What a process needs to record a person's decision: the store and the approval private key. */
export interface ApprovalDesk {
  store: ApprovalStore;
  signer: ApprovalSigner;
}

/**
 * A person's decision: signed and recorded in the ApprovalStore (who, when,
 * why), then announced to the controller so the suspended step is dispatched
 * again. The worker finds the decision in the store and checks its signature;
 * nothing in a prompt carries it.
 */
export async function decideApproval(
  runtime: ReinRuntime,
  desk: ApprovalDesk,
  approvalId: string,
  input: ApprovalDecisionInput,
): Promise<Approval> {
  const approval = await desk.store.decide(approvalId, input, desk.signer);
  await runtime.trace.append({
    runId: approval.runId,
    stepId: approval.stepId,
    kind: "approval.decided",
    payload: {
      approvalId,
      tool: approval.tool,
      actionHash: approval.actionHash,
      decision: approval.status,
      approver: approval.approver ?? null,
      note: approval.note ?? null,
      reason: approval.reason ?? null,
      decidedAt: approval.decidedAt ?? null,
    },
  });
  await runtime.queues.sendControl({
    type: "approval.decided",
    eventId: `approval-${approvalId}`,
    runId: approval.runId,
    approvalId,
    decision: input.decision,
  });
  return approval;
}
