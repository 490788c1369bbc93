import { z } from "zod";
import { Lesson } from "./lesson.ts";
import { FinalAnswer } from "./plan.ts";

export const VerdictDecision = z.enum(["continue", "retry", "replan", "escalate", "done", "fail"]);
export type VerdictDecision = z.infer<typeof VerdictDecision>;

export const CheckResult = z.object({
  check: z.string(),
  passed: z.boolean(),
  detail: z.string(),
});
export type CheckResult = z.infer<typeof CheckResult>;

export const ClaimStatus = z.enum(["supported", "unsupported", "contradicted"]);
export type ClaimStatus = z.infer<typeof ClaimStatus>;

export const ClaimCheck = z.object({ text: z.string(), status: ClaimStatus, evidence: z.array(z.string()).default([]) });
export type ClaimCheck = z.infer<typeof ClaimCheck>;

export const Verdict = z.object({
  schemaVersion: z.literal(1),
  runId: z.string(),
  stepId: z.string(),
  attempt: z.number().int().positive(),
  decision: VerdictDecision,
  reasons: z.array(z.string()).min(1),
  feedback: z.string().optional(),
  checks: z.array(CheckResult).default([]),
  loop: z.object({ kind: z.enum(["repeat", "cycle", "repeat_after_retry", "no_progress"]), fingerprint: z.string() }).optional(),
  /** How each claim of the step's answer stands against the run's evidence. */
  claims: z.array(ClaimCheck).optional(),
  /** The answer to deliver when the evaluator amended it (claims it could not back moved to `gaps`). */
  answer: FinalAnswer.optional(),
  /** Written when this verdict resolves an earlier failure of the step; the controller stores it. */
  lesson: Lesson.optional(),
});
export type Verdict = z.infer<typeof Verdict>;
