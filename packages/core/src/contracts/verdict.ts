import { z } from "zod";

export const VerdictDecision = z.enum(["continue", "retry", "replan", "escalate", "done", "fail"]);
export type VerdictDecision = z.infer<typeof VerdictDecision>;

export const CheckResult = z.object({
  check: z.string(),
  passed: z.boolean(),
  detail: z.string(),
});
export type CheckResult = z.infer<typeof CheckResult>;

export const Verdict = z.object({
  schemaVersion: z.literal(1),
  runId: z.string(),
  stepId: z.string(),
  attempt: z.number().int().positive(),
  decision: VerdictDecision,
  reasons: z.array(z.string()).min(1),
  feedback: z.string().optional(),
  checks: z.array(CheckResult).default([]),
  loop: z
    .object({ kind: z.enum(["repeat", "cycle", "repeat_after_retry", "no_progress"]), fingerprint: z.string() })
    .optional(),
});
export type Verdict = z.infer<typeof Verdict>;
