import { z } from "zod";
import { HashString } from "./hash-string.ts";
import { Usage } from "./usage.ts";
import { Claim, JoinRule } from "./plan.ts";
import { ToolGrant } from "./scope.ts";
import { Observation, ToolCallStatus } from "./tool-events.ts";

export const StepStatus = z.enum(["completed", "failed", "needs_approval", "delegated", "needs_context", "budget_exhausted"]);
export type StepStatus = z.infer<typeof StepStatus>;

/** One tool call as the evaluator sees it: enough to fingerprint and judge. */
export const ToolCallRecord = z.object({
  index: z.number().int().nonnegative(),
  name: z.string(),
  argsHash: HashString,
  /** sha256 of canonical (tool name, args): the action fingerprint. */
  fingerprint: HashString,
  status: ToolCallStatus,
  resultHash: HashString.optional(),
  observationId: z.string(),
  /** Whether a later call or the final text dealt with a failure of this call. */
  addressed: z.boolean().default(true),
});
export type ToolCallRecord = z.infer<typeof ToolCallRecord>;

/** A worker's request for a child step: a narrower task with a narrower surface. */
export const DelegationRequest = z.object({
  title: z.string().min(3).max(200),
  objective: z.string().min(10),
  /** Tools for the child, each a subset of the parent's, optionally with a narrower scope. */
  tools: z.array(ToolGrant).min(1),
  /** Limits the child asks for; a limit left out is whatever the parent has left. */
  budget: z
    .object({
      maxTurns: z.number().int().positive().optional(),
      maxToolCalls: z.number().int().positive().optional(),
      maxTokens: z.number().int().positive().optional(),
      maxMs: z.number().int().positive().optional(),
    })
    .default({}),
  outputDescription: z.string().default("a short summary of what was done"),
});
export type DelegationRequest = z.infer<typeof DelegationRequest>;

export const Suspension = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("approval"), approvalId: z.string(), tool: z.string() }),
  /**
   * `callIndex`: where the call it suspended on sits in the attempt's call records; the resume that answers it names the same index.
   * `more`: further children asked for in the same turn, in the order asked; the step waits until they have joined.
   * `join`: the join rule a call named, if any; the turn's children join by it (`all` when none names one).
   */
  z.object({
    kind: z.literal("delegate"),
    reason: z.string(),
    request: DelegationRequest,
    callIndex: z.number().int().nonnegative(),
    join: JoinRule.optional(),
    more: z
      .array(
        z.object({ reason: z.string(), request: DelegationRequest, callIndex: z.number().int().nonnegative(), join: JoinRule.optional() }),
      )
      .optional(),
  }),
  z.object({ kind: z.literal("context"), question: z.string(), callIndex: z.number().int().nonnegative() }),
]);
export type Suspension = z.infer<typeof Suspension>;

export const StepResult = z.object({
  schemaVersion: z.literal(1),
  runId: z.string(),
  stepId: z.string(),
  attempt: z.number().int().positive(),
  status: StepStatus,
  /** The final output, shaped by the step's output contract. */
  output: z.unknown(),
  summary: z.string(),
  claims: z.array(Claim).default([]),
  observations: z.array(Observation),
  toolCalls: z.array(ToolCallRecord),
  fingerprints: z.array(HashString),
  usage: Usage,
  turns: z.number().int().nonnegative(),
  error: z.string().optional(),
  suspension: Suspension.optional(),
});
export type StepResult = z.infer<typeof StepResult>;
