import type { Approval } from "../contracts/index.ts";
import { type ApprovalAction, actionHashOf } from "./action-hash.ts";
import type { ApprovalStore } from "./approval-store.ts";

export type GateResult =
  /** Approved for this exact action and now consumed: run it, once. */
  | { kind: "run"; approval: Approval }
  /** Denied or expired: do not run, tell the model why. */
  | { kind: "refused"; approval: Approval }
  /** Waiting for a person: the step suspends. */
  | { kind: "suspend"; approval: Approval; reused: boolean };

/**
 * The executor's side of approvals. It only ever reads, asks and consumes;
 * nothing in a call (its text, its args, a claimed approval id) is consulted,
 * because the approval is found by the action's hash alone.
 */
export async function passApprovalGate(
  store: ApprovalStore,
  runId: string,
  stepId: string,
  action: ApprovalAction,
): Promise<GateResult> {
  const actionHash = actionHashOf(action);
  const latest = await store.findForAction(runId, stepId, actionHash);
  if (latest?.status === "approved") {
    const consumed = await store.consume(actionHash, runId, stepId);
    if (consumed) return { kind: "run", approval: consumed };
  }
  if (latest?.status === "denied" || latest?.status === "expired") return { kind: "refused", approval: latest };
  const asked = await store.ask(runId, stepId, action);
  return { kind: "suspend", ...asked };
}
