import { z } from "zod";
import { HashString } from "./hash-string.ts";
import { Scope } from "./scope.ts";

export const ApprovalStatus = z.enum(["pending", "approved", "denied", "expired", "consumed"]);
export type ApprovalStatus = z.infer<typeof ApprovalStatus>;

/** A person's decision about one exact action, bound to it by `actionHash`. */
export const Approval = z.object({
  schemaVersion: z.literal(1),
  approvalId: z.string(),
  runId: z.string(),
  stepId: z.string(),
  tool: z.string(),
  args: z.unknown(),
  scope: Scope,
  actionHash: HashString,
  status: ApprovalStatus,
  reason: z.string().optional(),
  approver: z.string().optional(),
  note: z.string().optional(),
  createdAt: z.string(),
  decidedAt: z.string().optional(),
  expiresAt: z.string(),
  /** The decider's Ed25519 signature over the decision (see `ApprovalDecisionClaims`); set once decided. */
  signature: z.string().optional(),
  /** The idempotency key of the call that consumed it: that call alone, re-issued after its worker was lost, may go on with it. */
  consumedBy: z.string().optional(),
});
export type Approval = z.infer<typeof Approval>;
