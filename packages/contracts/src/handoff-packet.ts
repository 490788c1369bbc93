import { z } from "zod";
import { StepBudget } from "./budget.ts";
import { HashString } from "./hash-string.ts";
import { AcceptanceCriterion, OutputContract } from "./plan.ts";
import { PolicyRule } from "./permission.ts";
import { ToolGrant } from "./scope.ts";

export const EvidenceRef = z.object({
  id: z.string(),
  summary: z.string(),
});
export type EvidenceRef = z.infer<typeof EvidenceRef>;

export const LessonRef = z.object({
  id: z.string(),
  text: z.string(),
});
export type LessonRef = z.infer<typeof LessonRef>;

/** The task as the worker must understand it; nothing else about the run. */
export const TaskContract = z.object({
  title: z.string(),
  objective: z.string(),
  acceptanceCriteria: z.array(AcceptanceCriterion),
  outputContract: OutputContract,
  /** What the evaluator asked to change, when this is a retry. */
  feedback: z.string().optional(),
});
export type TaskContract = z.infer<typeof TaskContract>;

/**
 * What a resumed step is given back: the decision it waited for, its
 * child's result, or the planner's answer to its question.
 */
const DelegationAnswer = z.object({
  kind: z.literal("delegation"),
  childStepId: z.string(),
  status: z.string(),
  summary: z.string(),
  observationIds: z.array(z.string()).default([]),
  /** Set when the controller refused to create the child. */
  refusal: z.string().optional(),
  /** The suspended call this answers (its `Suspension.callIndex`): a worker applies it to that call only. */
  callIndex: z.number().int().nonnegative(),
});

export const ResumeInput = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("approval"), approvalId: z.string(), decision: z.enum(["approved", "denied", "expired"]) }),
  DelegationAnswer,
  /** Several children asked for in one turn: one answer per child, in the order asked, each naming the call it answers. */
  z.object({ kind: z.literal("delegations"), children: z.array(DelegationAnswer).min(1) }),
  z.object({
    kind: z.literal("context"),
    evidence: z.array(EvidenceRef),
    refusal: z.string().optional(),
    callIndex: z.number().int().nonnegative(),
  }),
]);
export type ResumeInput = z.infer<typeof ResumeInput>;

/** The most a packet may grant: its parent's surface and remaining budget, checked again at intake. */
export const PacketBoundsContract = z.object({
  surface: z.array(ToolGrant),
  budget: StepBudget,
});

/** Everything a worker may know, and nothing else. */
export const PacketBody = z.object({
  schemaVersion: z.literal(1),
  runId: z.string(),
  stepId: z.string(),
  attempt: z.number().int().positive(),
  parentStepId: z.string().nullable(),
  depth: z.number().int().nonnegative(),
  task: TaskContract,
  evidence: z.array(EvidenceRef),
  lessons: z.array(LessonRef),
  surface: z.array(ToolGrant),
  /** The goal's own permission rules; they apply before the deployment's. */
  policy: z.array(PolicyRule).default([]),
  budget: StepBudget,
  modelRole: z.literal("worker"),
  bounds: PacketBoundsContract,
  resume: ResumeInput.optional(),
  issuedAt: z.string(),
  expiresAt: z.string(),
});
export type PacketBody = z.infer<typeof PacketBody>;

/**
 * A signed packet. `contextHash` is the sha256 of the body's canonical JSON;
 * `signature` is the controller's Ed25519 signature over that hash (base64).
 */
export const HandoffPacket = z.object({
  body: PacketBody,
  contextHash: HashString,
  signature: z.string().min(1),
});
export type HandoffPacket = z.infer<typeof HandoffPacket>;
