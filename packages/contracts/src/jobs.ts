import { z } from "zod";
import { EvidenceRef, HandoffPacket, LessonRef } from "./handoff-packet.ts";
import { PolicyRule } from "./permission.ts";
import { FinalAnswer, StepSpec } from "./plan.ts";
import { ToolGrant } from "./scope.ts";
import { StepResult } from "./step-result.ts";
import { ToolCallStatus } from "./tool-events.ts";
import { VerdictDecision } from "./verdict.ts";
import { ControlEvent } from "./control-event.ts";
import { GoalKind } from "./goal.ts";

/** What the planner is told: a digest of the run, never transcripts. */
export const PlannerContext = z.object({
  goal: z.string(),
  /** What the goal asks for, when it was said at submit or by an earlier plan; absent, the plan must say it. */
  goalKind: GoalKind.optional(),
  grantedTools: z.array(z.string()),
  /** The programs the goal's `run_command` grant names; absent when it names none (any allowlisted program). */
  checkCommands: z.array(z.string()).optional(),
  completedSteps: z.array(z.object({ stepId: z.string(), title: z.string(), decision: VerdictDecision.optional(), summary: z.string() })),
  evidence: z.array(EvidenceRef),
  lastVerdict: z.object({ decision: VerdictDecision, reasons: z.array(z.string()), feedback: z.string().optional() }).optional(),
  lessons: z.array(LessonRef),
  instruction: z.string().optional(),
  /** Every observation id of the run: `evidence` is a recent window, but an answer may cite any of them. */
  knownEvidenceIds: z.array(z.string()).default([]),
  /** Set (2 or more) when the goal allows a plan to name a group of parallel steps: the most it may name. */
  maxParallel: z.number().int().positive().optional(),
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

/**
 * The run, step and attempt a step job names, read without its packet's
 * signature or the rest of its body: enough to report on a job that could
 * not be verified or did not finish, never to act on it.
 */
export const StepJobAddress = z.object({
  packet: z.object({ body: z.object({ runId: z.string().min(1), stepId: z.string().min(1), attempt: z.number().int().positive() }) }),
});
export type StepJobAddress = z.infer<typeof StepJobAddress>["packet"]["body"];

/**
 * Where a piece of evidence came from: an `observation` of a tool call (a
 * fact about the world), or a step's `output`, the text a step produced,
 * which is evidence of that text and of nothing else.
 */
export const EvidenceSource = z.enum(["observation", "output"]);
export type EvidenceSource = z.infer<typeof EvidenceSource>;

/** One piece of the run's evidence as the evaluator checks claims against it: an observation, or a step's output. */
export const EvidenceFact = z.object({
  id: z.string(),
  stepId: z.string(),
  tool: z.string(),
  status: ToolCallStatus,
  source: EvidenceSource.optional(),
});
export type EvidenceFact = z.infer<typeof EvidenceFact>;

/**
 * A step's result to judge: a planned step (`step`), or a delegated child
 * (`child`) before its result returns to its parent. A step whose output
 * contract is `answer` delivers the run's final answer and gets the final
 * checks too.
 */
export const StepEvaluateJob = z.object({
  kind: z.enum(["step", "child"]).default("step"),
  runId: z.string(),
  stepId: z.string(),
  attempt: z.number().int().positive(),
  spec: StepSpec,
  result: StepResult,
  /** Observation ids that exist in this run, for claim-to-evidence checks. */
  knownEvidenceIds: z.array(z.string()),
  /** All of the run's evidence with each call's status (not a window), so a claim citing a failed call is contradicted. */
  evidence: z.array(EvidenceFact).default([]),
  /** Fingerprints of earlier attempts of this step, for loop detection across retries. */
  priorFingerprints: z.array(z.array(z.string())),
  /** Fingerprints of calls that failed in earlier attempts: the same failing call again is a loop. */
  priorFailedFingerprints: z.array(z.string()).default([]),
  /** The goal's text, for the signature of a lesson. */
  goal: z.string().default(""),
  /** What the goal asks for, which decides what verifies a final answer; absent, `change`. */
  goalKind: GoalKind.optional(),
  /** The feedback this attempt was dispatched with, when it is a retry. */
  feedback: z.string().optional(),
  /** Risks the planner flagged; the judge says whether any materialized. */
  risks: z.array(z.string()).default([]),
  /** The goal's `run_command` grant: acceptance command checks run only within it; absent, none runs. */
  checkGrant: ToolGrant.optional(),
  /** The goal's policy rules, applied to acceptance command checks as to the worker's calls. */
  policy: z.array(PolicyRule).default([]),
});
export type StepEvaluateJob = z.infer<typeof StepEvaluateJob>;

/**
 * The planner proposed that the goal is met: its answer is checked against
 * all of the run's evidence before the run may end. Its verdict comes back
 * with `stepId` "final" and `attempt` the proposal's number.
 */
export const FinalAnswerEvaluateJob = z.object({
  kind: z.literal("final"),
  runId: z.string(),
  stepId: z.string(),
  attempt: z.number().int().positive(),
  answer: FinalAnswer,
  evidence: z.array(EvidenceFact),
  goal: z.string(),
  /** What the goal asks for, which decides what verifies the answer; absent, `change`. */
  goalKind: GoalKind.optional(),
  /** What the evaluator said about the previous proposal, when this one answers it. */
  feedback: z.string().optional(),
});
export type FinalAnswerEvaluateJob = z.infer<typeof FinalAnswerEvaluateJob>;

export const EvaluateJob = z.union([StepEvaluateJob, FinalAnswerEvaluateJob]);
export type EvaluateJob = z.infer<typeof EvaluateJob>;

/**
 * A step's evaluate job as the controller's outbox keeps it: everything but
 * the result, which is the `step.finished` event's and is attached when the
 * job is sent. The run's state so stays the same size however much a step
 * observed or returned.
 */
export const StepEvaluateRequest = StepEvaluateJob.omit({ result: true });
export type StepEvaluateRequest = z.infer<typeof StepEvaluateRequest>;

/** An evaluate job as an effect names it: a final answer whole, a step's without its result. */
export const EvaluateRequest = z.union([StepEvaluateRequest, FinalAnswerEvaluateJob]);
export type EvaluateRequest = z.infer<typeof EvaluateRequest>;

/** The name of a step-result job on the evaluate queue (its data a `step.finished` event); evaluate jobs are named "evaluate". */
export const STEP_RESULT_JOB = "step.finished";

export const ControlJob = ControlEvent;
export type ControlJob = ControlEvent;
