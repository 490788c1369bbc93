import { z } from "zod";
import { HashString } from "./hash-string.ts";
import { Scope } from "./scope.ts";

export const ApprovalStatus = z.enum(["pending", "approved", "denied", "expired", "consumed"]);
export type ApprovalStatus = z.infer<typeof ApprovalStatus>;

/**
 * Stored approvals by version. 2 binds each approval to the call that asked
 * (`call`) and signs the whole decision (note and reason too); a version 1
 * record is read (it lists and can still be decided) but never honoured:
 * the call asks again.
 */
export const APPROVAL_SCHEMA_VERSION = 2;

/** A person's decision about one exact action, bound to it by `actionHash`. */
export const Approval = z
  .object({
    schemaVersion: z.union([z.literal(1), z.literal(APPROVAL_SCHEMA_VERSION)]),
    approvalId: z.string(),
    runId: z.string(),
    stepId: z.string(),
    tool: z.string(),
    args: z.unknown(),
    scope: Scope,
    actionHash: HashString,
    /**
     * The call that asked, `<attempt>:<the model's call id>`: the only call
     * the decision covers (re-issued when the step resumes). Required from version 2.
     */
    call: z.string().min(1).optional(),
    status: ApprovalStatus,
    reason: z.string().optional(),
    approver: z.string().optional(),
    note: z.string().optional(),
    createdAt: z.string(),
    decidedAt: z.string().optional(),
    expiresAt: z.string(),
    /** The decider's Ed25519 signature over the decision (see `ApprovalDecisionClaims`); set once decided. */
    signature: z.string().optional(),
    /** The idempotency key of the call that consumed it (for the record: the gate trusts only the signed `call`). */
    consumedBy: z.string().optional(),
  })
  .refine((approval) => approval.schemaVersion === 1 || approval.call !== undefined, {
    message: "an approval of schema version 2 names the call that asked for it; expected call",
    path: ["call"],
  });
export type Approval = z.infer<typeof Approval>;
