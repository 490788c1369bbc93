import type { Approval } from "../contracts/index.ts";
import { type ApprovalAction, actionHashOf } from "./action-hash.ts";
import { type ApprovalVerifier, decisionProblem } from "./approval-signature.ts";
import type { ApprovalStore } from "./approval-store.ts";

export type GateResult =
  /** Approved for this exact action and now consumed: run it, once. */
  | { kind: "run"; approval: Approval }
  /** Denied or expired: do not run, tell the model why. */
  | { kind: "refused"; approval: Approval }
  /** A decision no decider signed for this action, run and step: do not run, and say nothing it claims. */
  | { kind: "forged"; approval: Approval; problem: string }
  /** Waiting for a person: the step suspends. */
  | { kind: "suspend"; approval: Approval; reused: boolean };

export interface ApprovalGateDeps {
  store: ApprovalStore;
  /** Holds the approval public key: checks decisions, cannot make them. */
  verifier: ApprovalVerifier;
  now: () => number;
}

/**
 * The executor's side of approvals. It only ever reads, verifies, asks and
 * consumes; nothing in a call (its text, its args, a claimed approval id) is
 * consulted, because the approval is found by the action's hash alone, and
 * nothing in Redis is believed unless a decider's signature covers this
 * action, run, step and expiry. With `call` (the call's idempotency key),
 * an approval this same call consumed before its worker was lost still
 * covers it: the step re-dispatched after the loss goes on instead of
 * asking the person again. It was used in time, so its expiry no longer counts.
 */
export async function passApprovalGate(deps: ApprovalGateDeps, runId: string, stepId: string, action: ApprovalAction, call?: string): Promise<GateResult> {
  const actionHash = actionHashOf(action);
  const latest = await deps.store.findForAction(runId, stepId, actionHash);
  const usedByThisCall = latest?.status === "consumed" && call !== undefined && latest.consumedBy === call;
  if (latest?.status === "approved" || latest?.status === "denied" || usedByThisCall) {
    const problem = decisionProblem(deps.verifier, latest, { actionHash, runId, stepId });
    if (problem) return { kind: "forged", approval: latest, problem };
    if (latest.status === "denied") return { kind: "refused", approval: latest };
    if (!usedByThisCall && Date.parse(latest.expiresAt) <= deps.now()) return { kind: "refused", approval: { ...latest, status: "expired" } };
    const consumed = await deps.store.consume(actionHash, runId, stepId, call);
    if (consumed) return { kind: "run", approval: consumed };
  }
  if (latest?.status === "expired") return { kind: "refused", approval: latest };
  const asked = await deps.store.ask(runId, stepId, action);
  return { kind: "suspend", ...asked };
}
