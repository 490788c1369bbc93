import type { Approval } from "@rein/contracts/run";
import type { ApprovalAction } from "@rein/contracts/calls";

/**
 * Where the executor finds, asks for and consumes a person's approval of one
 * action; the runtime's ApprovalStore is one. Nothing it returns is believed
 * before the decider's signature is checked (see passApprovalGate).
 */
export interface ApprovalDesk {
  /** The latest approval of this action in the step, whatever its status. */
  findForAction(runId: string, stepId: string, actionHash: string): Promise<Approval | null>;
  /** The pending approval this call asked for before, reused, else a new one bound to `call`. */
  ask(runId: string, stepId: string, action: ApprovalAction, call: string): Promise<{ approval: Approval; reused: boolean }>;
  /** Turns the approved approval of this action, run and step into consumed; null when there was none or another caller won. */
  consume(actionHash: string, runId: string, stepId: string, call?: string): Promise<Approval | null>;
}
