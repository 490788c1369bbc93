import type { Approval, ApprovalDecisionInput, ApprovalStore, ReinRuntime } from "@rein/core";

/**
 * A person's decision: recorded in the ApprovalStore (who, when, why), then
 * announced to the controller so the suspended step is dispatched again.
 * The worker finds the decision in the store; nothing in a prompt carries it.
 */
export async function decideApproval(
  runtime: ReinRuntime,
  approvals: ApprovalStore,
  approvalId: string,
  input: ApprovalDecisionInput,
): Promise<Approval> {
  const approval = await approvals.decide(approvalId, input);
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
