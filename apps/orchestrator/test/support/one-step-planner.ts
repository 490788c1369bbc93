import type { FinalAnswer, ModelScriptInput, StepSpec } from "@rein/core";
import type { z } from "zod";

/**
 * The planner's part of a script for a run of one step: it plans `step`
 * while nothing is completed and, once the step is, ends the run with
 * `answer`. Both replies also match the goal's text, so a script shared by
 * several runs answers each of them only its own.
 */
export function oneStepPlanner(goal: string, step: z.input<typeof StepSpec>, answer: z.input<typeof FinalAnswer>): NonNullable<ModelScriptInput["planner"]> {
  return [
    { match: ["Completed steps: none", `Goal: ${goal}`], turns: [{ output: { current_step: step, done: false } }] },
    { match: ["Completed steps: 1", `Goal: ${goal}`], turns: [{ output: { current_step: null, done: true, answer } }] },
  ];
}
