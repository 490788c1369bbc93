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

/** A lazy plan: only the current step is specified; the rest are titles. */
export const Plan = z
  .object({
    current_step: StepSpec.nullable().default(null),
    next_steps: z.array(z.string()).default([]),
    risks: z.array(z.string()).default([]),
    done: z.boolean().default(false),
    answer: FinalAnswer.optional(),
    /** What the goal asks for (`GoalKind`), when it was not given: said with the plan that starts the work. */
    goal_kind: GoalKind.optional(),
  })
  .refine((plan) => plan.done || plan.current_step !== null, {
    message: "a plan that is not done must specify current_step",
    path: ["current_step"],
  });
export type Plan = z.infer<typeof Plan>;
