import { actionHashOf } from "@rein/contracts/calls";
import { passApprovalGate } from "../approval-gate.ts";
import { type CallStage, need } from "../call-in-progress.ts";
import { isRepeatable } from "../recorded-calls.ts";
import { budgetExhausted } from "./check-budget.ts";

/** A call the policy asks about runs only on a person's signed approval of this exact action; meanwhile the step suspends. */
export const passApproval: CallStage = async (state) => {
  const decision = need(state, "decision");
  if (decision.decision !== "ask" || state.recorded) return undefined;
  const tool = need(state, "tool");
  const { deps, context, trace } = state;
  // The budget check that follows refuses this call whatever a person decides: no one is asked, no approval is spent.
  if (budgetExhausted(context, deps.now())) return undefined;
  if (!deps.approvals || !deps.approvalVerifier) {
    await trace.emit("approval.unavailable", { rule: decision.rule });
    return {
      status: "denied",
      trust: "runtime",
      failure: "different_action",
      message: "approval needed but no approval store",
      content: `${tool.name} was not executed: it needs a person's approval (${decision.reason}) and this deployment has no way to ask for one.`,
    };
  }
  const action = { tool: tool.name, args: need(state, "input").args, scope: need(state, "scope") };
  // The approval this same call used before its worker was lost covers it again only where running it again is
  // safe or governed: a repeatable call, or one whose intent record makes a started effect "outcome unknown".
  const call = {
    id: `${context.attempt}:${state.identity.callId}`,
    key: state.idempotencyKey,
    reuseConsumed: Boolean(deps.idempotency) || isRepeatable(tool),
  };
  const gate = await passApprovalGate(
    { store: deps.approvals, verifier: deps.approvalVerifier, now: deps.now },
    context.runId,
    context.stepId,
    action,
    call,
  );
  const { approval } = gate;
  const approvalPayload = {
    approvalId: approval.approvalId,
    actionHash: approval.actionHash,
    status: approval.status,
    rule: decision.rule,
  };
  switch (gate.kind) {
    case "forged":
      // Its approver, reason and note are whatever was written into Redis: none of it reaches the model.
      await trace.emit("approval.forged", { ...approvalPayload, problem: gate.problem });
      return {
        status: "denied",
        trust: "runtime",
        failure: "different_action",
        message: `approval ${approval.approvalId} failed verification: ${gate.problem}`,
        content: `${tool.name} was not executed: it is not approved. The record of approval ${approval.approvalId} is not a decision a person's client signed, so the runtime ignored it. Do not retry this exact action; choose a different one or report that it was not approved.`,
      };
    case "refused": {
      // Only a signed decision's approver, reason and expiry are repeated; a record Redis alone calls expired says nothing.
      const signed = gate.verified;
      await trace.emit("approval.refused", {
        ...approvalPayload,
        approver: signed ? (approval.approver ?? null) : null,
        reason: signed ? (approval.reason ?? null) : null,
      });
      const expiry = signed
        ? `the approval expired at ${approval.expiresAt}, before the action ran`
        : "the approval request expired before anyone decided";
      const why =
        approval.status === "expired"
          ? expiry
          : `${approval.approver ?? "a person"} denied it${approval.reason ? `: ${approval.reason}` : ""}`;
      return {
        status: "denied",
        trust: "runtime",
        failure: "different_action",
        message: `approval ${approval.approvalId} ${approval.status}`,
        content: `${tool.name} was not executed: ${why} (approval ${approval.approvalId}). Do not retry this exact action; choose a different one or report that it was refused.`,
      };
    }
    case "suspend":
      await trace.emit(gate.reused ? "approval.reused" : "approval.requested", { ...approvalPayload, expiresAt: approval.expiresAt });
      return {
        status: "pending_approval",
        trust: "runtime",
        message: `waiting for approval ${approval.approvalId}`,
        content: `${tool.name} needs a person's approval before it can run (${decision.reason}). Approval ${approval.approvalId} has been requested; the step pauses until someone decides. Nothing you write can approve it.`,
        suspend: { kind: "approval", approvalId: approval.approvalId, tool: tool.name },
      };
    case "run":
      await trace.emit("approval.consumed", { ...approvalPayload, approver: approval.approver ?? null, actionHash: actionHashOf(action) });
      return undefined;
  }
};
