import type { z } from "zod";
import type { FinalAnswer, StepSpec } from "@rein/contracts";
import type { ModelScriptInput } from "../scripted/script.ts";

type PlannerScript = NonNullable<ModelScriptInput["planner"]>;

/**
 * The planner's part of a script for a run of `steps`, planned one at a time
 * in order, that ends with `answer` once the last is completed. Each reply
 * matches its prompt's first line, "Completed steps: N" with its newline (so
 * 1 does not match 10 to 19), and, given `goal`, the goal's text, so that a
 * script shared by several runs answers each of them only its own.
 */
export function plannerOfSteps(
  steps: readonly z.input<typeof StepSpec>[],
  answer: z.input<typeof FinalAnswer>,
  goal?: string,
): PlannerScript {
  const matching = (completed: number) => [
    `Completed steps: ${completed === 0 ? "none" : completed}\n`,
    ...(goal === undefined ? [] : [`Goal: ${goal}`]),
  ];
  return [
    ...steps.map((step, index) => ({ match: matching(index), turns: [{ output: { current_step: step, done: false } }] })),
    { match: matching(steps.length), turns: [{ output: { current_step: null, done: true, answer } }] },
  ];
}

/** The planner's part of a script for a run of one step (plannerOfSteps) toward `goal`. */
export function oneStepPlanner(goal: string, step: z.input<typeof StepSpec>, answer: z.input<typeof FinalAnswer>): PlannerScript {
  return plannerOfSteps([step], answer, goal);
}
