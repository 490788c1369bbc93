import { z } from "zod";
import { StepBudget } from "./budget.ts";
import { GoalKind } from "./goal.ts";

/** A check the evaluator can run itself, or hand to the judge when code cannot decide. */
export const AcceptanceCriterion = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("command"),
    description: z.string().min(1),
    argv: z.array(z.string()).min(1),
    expectExitCode: z.number().int().default(0),
  }),
  z.object({
    kind: z.literal("file_contains"),
    description: z.string().min(1),
    path: z.string().min(1),
    text: z.string().min(1),
  }),
  z.object({
    kind: z.literal("output_matches"),
    description: z.string().min(1),
    pattern: z.string().min(1).describe("RE2 syntax: no backreferences or lookaround"),
  }),
  z.object({
    kind: z.literal("judge"),
    description: z.string().min(1),
  }),
]);
export type AcceptanceCriterion = z.infer<typeof AcceptanceCriterion>;

export const OutputContract = z.object({
  description: z.string().min(1),
  /** "text": any final text; "answer": the claim/evidence shape of FinalAnswer. */
  format: z.enum(["text", "answer"]).default("text"),
});
export type OutputContract = z.infer<typeof OutputContract>;

/** One concrete step, fully specified: what to do, how it is checked, with what. */
export const StepSpec = z.object({
  title: z.string().min(3).max(200),
  objective: z.string().min(10, "the objective must say what to do in at least a short sentence"),
  acceptance_criteria: z.array(AcceptanceCriterion).default([]),
  tools: z.array(z.string()).default([]),
  evidence_ids: z.array(z.string()).default([]),
  output_contract: OutputContract.default({ description: "a short summary of what was done", format: "text" }),
  budget: StepBudget.partial().default({}),
});
export type StepSpec = z.infer<typeof StepSpec>;

export const Claim = z.object({
  text: z.string().min(1),
  evidence: z.array(z.string()).default([]),
});
export type Claim = z.infer<typeof Claim>;

/** The answer a run ends with: every claim names the observations that back it. */
export const FinalAnswer = z.object({
  answer: z.string(),
  claims: z.array(Claim).default([]),
  gaps: z.array(z.string()).default([]),
});
export type FinalAnswer = z.infer<typeof FinalAnswer>;

/**
 * How a group of parallel steps joins: `all` (every step must pass), `any`
 * (the first to pass wins, the rest are cancelled) or `quorum` (`n` must pass).
 */
export const JoinRule = z.object({
  rule: z.enum(["all", "any", "quorum"]),
  /** How many must pass, for `quorum`. */
  n: z.number().int().positive().optional(),
});
export type JoinRule = z.infer<typeof JoinRule>;

/** Independent current steps dispatched at once, and how they join before the planner is asked again. */
export const ParallelSteps = z.object({
  steps: z.array(StepSpec).min(2),
  join: JoinRule.default({ rule: "all" }),
});
export type ParallelSteps = z.infer<typeof ParallelSteps>;

const planFields = {
  current_step: StepSpec.nullable().default(null),
  next_steps: z.array(z.string()).default([]),
  risks: z.array(z.string()).default([]),
  done: z.boolean().default(false),
  answer: FinalAnswer.optional(),
  /** What the goal asks for (`GoalKind`), when it was not given: said with the plan that starts the work. */
  goal_kind: GoalKind.optional(),
};

/** The plan a planner is offered when its run does not fan out: no `parallel` field, so its prompt does not grow. */
export const SequentialPlan = z.object(planFields).refine((plan) => plan.done || plan.current_step !== null, {
  message: "a plan that is not done must specify current_step",
  path: ["current_step"],
});

/** A lazy plan: only the current step (or a group of parallel ones) is specified; the rest are titles. */
export const Plan = z
  .object({
    ...planFields,
    /** Independent steps to run at once instead of `current_step`, offered when the goal allows fan-out (`maxParallel` of 2 or more). */
    parallel: ParallelSteps.optional(),
  })
  .refine((plan) => plan.done || plan.current_step !== null || plan.parallel !== undefined, {
    message: "a plan that is not done must specify current_step (or parallel)",
    path: ["current_step"],
  });
export type Plan = z.infer<typeof Plan>;
