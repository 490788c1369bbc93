import { APPROVAL_SCHEMA_VERSION, type Approval } from "@rein/contracts/run";
import { type ApprovalAction, actionHashOf } from "@rein/contracts/calls";
import { type ApprovalVerifier, decisionProblem } from "@rein/signing";
import type { ApprovalDesk } from "../ports/approval-desk.ts";

export type GateResult =
  /** Approved for this exact action and call, and now consumed: run it, once. */
  | { kind: "run"; approval: Approval }
  /**
   * Denied or expired: do not run, tell the model why. `verified` says the
   * record's text (approver, reason, expiry) is a decider's signed word;
   * otherwise none of it may be shown.
   */
  | { kind: "refused"; approval: Approval; verified: boolean }
  /** A decision no decider signed for this action, call, run and step: do not run, and say nothing it claims. */
  | { kind: "forged"; approval: Approval; problem: string }
  /** Waiting for a person: the step suspends. */
  | { kind: "suspend"; approval: Approval; reused: boolean };

export interface ApprovalGateDeps {
  store: ApprovalDesk;
  /** Holds the approval public key: checks decisions, cannot make them. */
  verifier: ApprovalVerifier;
  now: () => number;
}

export interface GateCall {
  /**
   * Which call this is, as a decision names it: `<attempt>:<the model's call
   * id>`. The same block re-issued when the step resumes (or after its
   * worker was lost) keeps it; a later call, or a retry's, does not.
   */
  id: string;
  /** The call's idempotency key (`runId:stepId:attempt:index`), recorded as the approval's `consumedBy`. */
  key: string;
  /**
   * Whether an approval this same call consumed before its worker was lost
   * covers it again: only where running it again is safe or governed (a
   * repeatable call, or one whose intent record makes a started effect
   * "outcome unknown").
   */
  reuseConsumed: boolean;
}

/**
 * The executor's side of approvals. It only ever reads, verifies, asks and
 * consumes; nothing in a call's text or args (a claimed approval id) is
 * consulted, because the approval is found by the action's hash alone, and
 * nothing in Redis is believed unless a decider's signature covers the whole
 * decision for this action, run and step. An approval covers the one call
 * that asked (its signed `call`), so no edit of `consumedBy` lends it to a
 * later call; a call id only ever narrows what a decision covers, and
 * consuming it twice still needs the same idempotency key. The signed
 * expiry holds whatever Redis says, even for the call re-issued after its
 * worker was lost; a signed denial holds for the action in the step.
 */
export async function passApprovalGate(
  deps: ApprovalGateDeps,
  runId: string,
  stepId: string,
  action: ApprovalAction,
  call: GateCall,
): Promise<GateResult> {
  const actionHash = actionHashOf(action);
  const latest = await deps.store.findForAction(runId, stepId, actionHash);
  // One stored before decisions were signed whole is never believed: the call asks again.
  if (!latest || latest.schemaVersion !== APPROVAL_SCHEMA_VERSION) return ask(deps, runId, stepId, action, call);
  if (latest.status === "denied") {
    // A person's denial holds for every later call of the action in the step, so it is checked against the call it names.
    const problem = decisionProblem(deps.verifier, latest, { actionHash, runId, stepId, call: latest.call });
    return problem ? { kind: "forged", approval: latest, problem } : { kind: "refused", approval: latest, verified: true };
  }
  // An approval covers only the call that asked for it: a later call of the same action, or a retry's, asks anew.
  if (latest.call !== call.id) return ask(deps, runId, stepId, action, call);
  if (latest.status === "approved" || (latest.status === "consumed" && call.reuseConsumed)) {
    const problem = decisionProblem(deps.verifier, latest, { actionHash, runId, stepId, call: call.id });
    if (problem) return { kind: "forged", approval: latest, problem };
    if (Date.parse(latest.expiresAt) <= deps.now()) return { kind: "refused", approval: { ...latest, status: "expired" }, verified: true };
    const consumed = await deps.store.consume(actionHash, runId, stepId, call.key);
    if (consumed) return { kind: "run", approval: consumed };
  }
  // Expired before anyone decided (or said so by Redis): refused, with nothing of the record shown.
  if (latest.status === "expired") return { kind: "refused", approval: latest, verified: false };
  return ask(deps, runId, stepId, action, call);
}

async function ask(deps: ApprovalGateDeps, runId: string, stepId: string, action: ApprovalAction, call: GateCall): Promise<GateResult> {
  const asked = await deps.store.ask(runId, stepId, action, call.id);
  return { kind: "suspend", ...asked };
}
