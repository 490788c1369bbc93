import { type KeyObject, sign, verify } from "node:crypto";
import { z } from "zod";
import { canonicalJson } from "../canonical/canonical-json.ts";
import { HashString } from "../contracts/common.ts";

/**
 * What a decider signs: the decision about one approval of one action in one
 * run and step, by whom, when, and until when it may be used. Changing any of
 * these in Redis breaks the signature.
 */
export const ApprovalDecisionClaims = z.object({
  approvalId: z.string().min(1),
  actionHash: HashString,
  runId: z.string().min(1),
  stepId: z.string().min(1),
  decision: z.enum(["approved", "denied"]),
  approver: z.string().min(1),
  decidedAt: z.string().min(1),
  expiresAt: z.string().min(1),
});
export type ApprovalDecisionClaims = z.infer<typeof ApprovalDecisionClaims>;

// Bound into every signed message so an approval signature can never be
// passed off as a signature over anything else, nor the reverse.
const PURPOSE = "rein.approval-decision.v1";

const message = (claims: ApprovalDecisionClaims): Buffer => Buffer.from(canonicalJson({ purpose: PURPOSE, ...ApprovalDecisionClaims.parse(claims) }));

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
