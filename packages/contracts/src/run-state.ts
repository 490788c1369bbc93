import { z } from "zod";
import { BudgetSpent } from "./budget.ts";
import { Usage } from "./usage.ts";
import { ControllerEffect } from "./controller-effect.ts";
import { Goal } from "./goal.ts";
import { PacketBoundsContract, ResumeInput } from "./handoff-packet.ts";
import { ToolGrant } from "./scope.ts";
import { StepStatus } from "./step-result.ts";
import { FinalAnswer, JoinRule, Plan, StepSpec } from "./plan.ts";
import { BuildId } from "./build-id.ts";
import { ToolCallStatus } from "./tool-events.ts";
import { ClaimCheck, VerdictDecision } from "./verdict.ts";
import { EvidenceSource } from "./jobs.ts";

export const RunStatus = z.enum([
  "planning",
  "dispatching",
  "executing",
  "evaluating",
  "waiting_approval",
  "done",
  "failed",
  "escalated",
  "cancelled",
]);
export type RunStatus = z.infer<typeof RunStatus>;

export const TERMINAL_STATUSES: readonly RunStatus[] = ["done", "failed", "cancelled"];
export const isTerminal = (status: RunStatus): boolean => TERMINAL_STATUSES.includes(status);

/**
 * The statuses in which no step of the run may go on: the run ended, or it
 * waits for a person (escalated), whose decision dispatches what runs next.
 * A step still running then is work nobody asked for.
 */
export const STEPS_STOPPED_STATUSES: readonly RunStatus[] = [...TERMINAL_STATUSES, "escalated"];
export const stopsSteps = (status: RunStatus): boolean => STEPS_STOPPED_STATUSES.includes(status);

/** `cancelled`: the run ended (cancelled, failed, or out of budget) while the step was still in flight. */
export const StepPhase = z.enum(["dispatched", "executing", "evaluating", "suspended", "completed", "failed", "cancelled"]);
export type StepPhase = z.infer<typeof StepPhase>;

export const StepState = z.object({
  stepId: z.string(),
  spec: StepSpec,
  attempt: z.number().int().positive(),
  phase: StepPhase,
  parentStepId: z.string().nullable(),
  depth: z.number().int().nonnegative(),
  feedback: z.string().optional(),
  summary: z.string().optional(),
  decision: VerdictDecision.optional(),
  usage: Usage,
  /**
   * What the current attempt's results have reported so far. A worker reports
   * its attempt's usage cumulatively (a resumed step restores it from its
   * checkpoint), so the transition counts only what is new since this.
   */
  attemptUsage: Usage.optional(),
  /** The approval this step is suspended on, if any. */
  awaitingApprovalId: z.string().optional(),
  /** A child's own tools and scopes, narrower than its parent's; absent for a planned step. */
  grants: z.array(ToolGrant).optional(),
  /** The surface and budget this step may never exceed (its parent's, or the run's grant). */
  bounds: PacketBoundsContract.optional(),
  /** The child step this step is suspended on, when it delegated. */
  awaitingChildId: z.string().optional(),
  /** The question this step asked its parent (the planner), while unanswered. */
  awaitingContext: z.string().optional(),
  /** Where the delegate or request_context call this step is suspended on sits in its attempt's call records. */
  awaitingCallIndex: z.number().int().nonnegative().optional(),
  /**
   * What the step's latest dispatch handed back to it, kept until the step
   * reports again: a re-dispatch after its workers were lost hands it back
   * once more (the worker applies it only to the call it answers).
   */
  resumeInput: ResumeInput.optional(),
  /** How many times this attempt was re-dispatched after a suspension. */
  resumes: z.number().int().nonnegative().default(0),
  /** How many times this attempt was dispatched again because every worker that held it was lost. */
  redispatches: z.number().int().nonnegative().default(0),
  /** Action fingerprints of each finished attempt, oldest first, for loop detection across retries. */
  attemptFingerprints: z.array(z.array(z.string())).default([]),
  /** Fingerprints of the calls that failed in each finished attempt, oldest first. */
  attemptFailedFingerprints: z.array(z.array(z.string())).optional(),
  /** The step's final answer, when its output contract asks for one. */
  answer: FinalAnswer.optional(),
  /** The parallel group this step belongs to (`RunState.groups`), if any. */
  groupId: z.string().optional(),
  /** What a delegated child's last attempt returned, held while the evaluator judges it before it goes back to the parent. */
  outcome: z.object({ status: StepStatus, summary: z.string(), observationIds: z.array(z.string()) }).optional(),
});
export type StepState = z.infer<typeof StepState>;

/**
 * Steps dispatched at once: a plan's parallel group (no parent) or the
 * children one step asked for in one turn. `stepIds` keeps the order they
 * were asked in, which is the order the join reads them in, whatever order
 * they finish in.
 */
export const StepGroup = z.object({
  groupId: z.string(),
  parentStepId: z.string().nullable(),
  stepIds: z.array(z.string()).min(1),
  join: JoinRule,
  /** For children of a step: the call each answers, by position in `stepIds`. */
  callIndexes: z.array(z.number().int().nonnegative()).optional(),
  phase: z.enum(["running", "joined", "failed"]),
});
export type StepGroup = z.infer<typeof StepGroup>;

export const EvidenceEntry = z.object({
  id: z.string(),
  stepId: z.string(),
  tool: z.string(),
  summary: z.string(),
  /** @defaultValue "observation" */
  source: EvidenceSource.optional(),
  /**
   * How the call behind the observation went: a claim that cites a failed
   * observation is contradicted by it.
   * @defaultValue "ok" (states stored before the status was recorded)
   */
  status: ToolCallStatus.default("ok"),
});
export type EvidenceEntry = z.infer<typeof EvidenceEntry>;

export const VerdictSummary = z.object({
  stepId: z.string(),
  attempt: z.number().int().positive(),
  decision: VerdictDecision,
  reasons: z.array(z.string()),
  feedback: z.string().optional(),
});
export type VerdictSummary = z.infer<typeof VerdictSummary>;

export const RunResult = z.object({
  answer: FinalAnswer.nullable(),
  summary: z.string(),
  /** True when the run stopped before its goal was met; `missing` says what. */
  partial: z.boolean(),
  missing: z.array(z.string()).default([]),
  /** How the evaluator found each claim of the final answer against the run's evidence. */
  claims: z.array(ClaimCheck).default([]),
});
export type RunResult = z.infer<typeof RunResult>;

/**
 * A final answer the planner proposed. The run is not done until the
 * evaluator's verdict over it says so; `attempt` counts proposals, and
 * `feedback` is what the evaluator said about the previous one.
 */
export const FinalProposal = z.object({
  planNo: z.number().int().positive(),
  attempt: z.number().int().positive(),
  answer: FinalAnswer,
  phase: z.enum(["evaluating", "rejected", "accepted"]),
  feedback: z.string().optional(),
});
export type FinalProposal = z.infer<typeof FinalProposal>;

/** The step id a verdict over the planner's final answer carries. */
export const FINAL_ANSWER_STEP_ID = "final";

/** The durable state of a run. Written only by the controller, with compare-and-set on `version`. */
export const RunState = z.object({
  schemaVersion: z.literal(1),
  runId: z.string(),
  version: z.number().int().nonnegative(),
  status: RunStatus,
  goal: Goal,
  /** The build the run was started under: only step workers of that build take its steps. Absent: any worker without a build. */
  build: BuildId.optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
  plan: Plan.nullable(),
  planCount: z.number().int().nonnegative(),
  steps: z.array(StepState),
  /** Parallel groups, oldest first; absent in a run that never fanned out. */
  groups: z.array(StepGroup).optional(),
  evidence: z.array(EvidenceEntry),
  pendingApprovals: z.array(z.string()),
  spent: BudgetSpent,
  usage: Usage,
  verdicts: z.array(VerdictSummary),
  lessonsUsed: z.array(z.string()).default([]),
  instruction: z.string().optional(),
  /** The planner's latest proposal that the goal is met, while it is being (or was last) checked. */
  proposal: FinalProposal.optional(),
  result: RunResult.optional(),
  stopReason: z.string().optional(),
  /** Ids of the last events applied, so a redelivered event is recognised. */
  appliedEvents: z.array(z.string()),
  /**
   * How many times each job the run waits for was sent again after it was
   * lost (by job id); only jobs still awaited are kept.
   */
  resends: z.record(z.string(), z.number().int().positive()).optional(),
  /** The effects of the last applied event, re-performed if that event is redelivered. */
  outbox: z.array(ControllerEffect),
});
export type RunState = z.infer<typeof RunState>;
