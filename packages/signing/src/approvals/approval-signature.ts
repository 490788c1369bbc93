import { type KeyObject, sign, verify } from "node:crypto";
import { z } from "zod";
import { canonicalJson, HashString } from "@rein/contracts";
import { APPROVAL_SCHEMA_VERSION, type Approval } from "@rein/contracts/run";

/**
 * What a decider signs: the whole decision about one approval of one action
 * asked by one call in one run and step: its status, by whom, when, the
 * person's note and reason, and until when it may be used. Changing any of
 * these in Redis breaks the signature.
 */
export const ApprovalDecisionClaims = z.object({
  approvalId: z.string().min(1),
  actionHash: HashString,
  runId: z.string().min(1),
  stepId: z.string().min(1),
  /** The call that asked (`<attempt>:<the model's call id>`): the one call the decision covers. */
  call: z.string().min(1),
  decision: z.enum(["approved", "denied"]),
  approver: z.string().min(1),
  note: z.string().nullable(),
  reason: z.string().nullable(),
  decidedAt: z.string().min(1),
  expiresAt: z.string().min(1),
});
export type ApprovalDecisionClaims = z.infer<typeof ApprovalDecisionClaims>;

// Bound into every signed message so an approval signature can never be
// passed off as a signature over anything else, nor the reverse. v1 signed
// neither the note, the reason nor the call; its signatures never verify here.
const PURPOSE = "rein.approval-decision.v2";

const message = (claims: ApprovalDecisionClaims): Buffer =>
  Buffer.from(canonicalJson({ purpose: PURPOSE, ...ApprovalDecisionClaims.parse(claims) }));

/**
 * Signs approval decisions with the approval private key. Only the processes
 * that take a person's decision hold one (`rein approve`/`deny`, the HTTP API,
 * `rein run`); step workers never do, so nothing a tool or model reaches can
 * mint an approval.
 */
export class ApprovalSigner {
  constructor(private readonly privateKey: KeyObject) {}

  sign(claims: ApprovalDecisionClaims): string {
    return sign(null, message(claims), this.privateKey).toString("base64");
  }
}

/** Checks a decision's signature against the approval public key (what the gate holds). */
export class ApprovalVerifier {
  constructor(private readonly publicKey: KeyObject) {}

  verify(claims: ApprovalDecisionClaims, signature: string | undefined): boolean {
    if (!signature || !ApprovalDecisionClaims.safeParse(claims).success) return false;
    try {
      return verify(null, message(claims), this.publicKey, Buffer.from(signature, "base64"));
    } catch {
      return false;
    }
  }
}

/** What a decided approval must match: the call in front of the gate (by default, what the record names). */
export interface DecisionExpectation {
  actionHash: string;
  runId: string;
  stepId: string;
  call?: string;
}

/**
 * Why a decided approval is not a decision a decider signed, whole, for
 * exactly the `expected` action, call, run and step; undefined when it is.
 */
export function decisionProblem(
  verifier: ApprovalVerifier,
  approval: Approval,
  expected: DecisionExpectation = approval,
): string | undefined {
  if (approval.schemaVersion < APPROVAL_SCHEMA_VERSION)
    return `it was stored by an older Rein (schema version ${approval.schemaVersion}) whose signature leaves parts of the decision out`;
  if (!approval.signature) return "it carries no decider's signature";
  if (!approval.approver || !approval.decidedAt || !expected.call) return "it names no approver, decision time or call";
  const claims = {
    approvalId: approval.approvalId,
    actionHash: expected.actionHash,
    runId: expected.runId,
    stepId: expected.stepId,
    call: expected.call,
    // A consumed approval was an approved one.
    decision: (approval.status === "consumed" ? "approved" : approval.status) as "approved" | "denied",
    approver: approval.approver,
    note: approval.note ?? null,
    reason: approval.reason ?? null,
    decidedAt: approval.decidedAt,
    expiresAt: approval.expiresAt,
  };
  if (!verifier.verify(claims, approval.signature)) {
    return "its signature does not cover this decision (status, approver, note, reason, expiry), action, call, run and step under the approval public key";
  }
  return undefined;
}
