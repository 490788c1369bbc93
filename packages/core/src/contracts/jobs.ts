import { z } from "zod";
import { EvidenceRef, HandoffPacket, LessonRef } from "./handoff-packet.ts";
import { StepSpec } from "./plan.ts";
import { StepResult } from "./step-result.ts";
import { VerdictDecision } from "./verdict.ts";
import { ControlEvent } from "./control-event.ts";

/** What the planner is told: a digest of the run, never transcripts. */
export const PlannerContext = z.object({
  goal: z.string(),
  grantedTools: z.array(z.string()),
  completedSteps: z.array(
    z.object({ stepId: z.string(), title: z.string(), decision: VerdictDecision.optional(), summary: z.string() }),
  ),
  evidence: z.array(EvidenceRef),
  lastVerdict: z
    .object({ decision: VerdictDecision, reasons: z.array(z.string()), feedback: z.string().optional() })
    .optional(),
  lessons: z.array(LessonRef),
  instruction: z.string().optional(),
});
export type PlannerContext = z.infer<typeof PlannerContext>;

export const PlanJob = z.object({
  runId: z.string(),
  planNo: z.number().int().positive(),
  context: PlannerContext,
  modelOverride: z.object({ provider: z.string(), model: z.string().optional() }).optional(),
});
export type PlanJob = z.infer<typeof PlanJob>;

/**
 * A worker asked its parent for more context. The planner decides what to
 * pass from the run's evidence digest, or refuses with a reason; the worker
 * never reads the parent's context itself.
 */
export const ContextJob = z.object({
  runId: z.string(),
  stepId: z.string(),
  attempt: z.number().int().positive(),
  resumes: z.number().int().nonnegative(),
  question: z.string(),
  goal: z.string(),
  task: z.string(),
  /** Evidence the step was already handed. */
  handed: z.array(z.string()),
  evidence: z.array(EvidenceRef),
  modelOverride: z.object({ provider: z.string(), model: z.string().optional() }).optional(),
});
export type ContextJob = z.infer<typeof ContextJob>;

export const StepJob = z.object({ packet: HandoffPacket });
export type StepJob = z.infer<typeof StepJob>;

export const EvaluateJob = z.object({
  runId: z.string(),
  stepId: z.string(),
  attempt: z.number().int().positive(),
  spec: StepSpec,
  result: StepResult,
  /** Observation ids that exist in this run, for claim-to-evidence checks. */
  knownEvidenceIds: z.array(z.string()),
  /** Fingerprints of earlier attempts of this step, for loop detection across retries. */
  priorFingerprints: z.array(z.array(z.string())),
  /** Fingerprints of calls that failed in earlier attempts: the same failing call again is a loop. */
  priorFailedFingerprints: z.array(z.string()).default([]),
  /** The goal's text, for the signature of a lesson. */
  goal: z.string().default(""),
  /** The feedback this attempt was dispatched with, when it is a retry. */
  feedback: z.string().optional(),
  /** Risks the planner flagged; the judge says whether any materialized. */
  risks: z.array(z.string()).default([]),
});
export type EvaluateJob = z.infer<typeof EvaluateJob>;

export const ControlJob = ControlEvent;
export type ControlJob = ControlEvent;
