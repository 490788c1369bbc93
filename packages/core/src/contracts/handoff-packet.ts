import { z } from "zod";
import { StepBudget } from "./budget.ts";
import { HashString } from "./common.ts";
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
