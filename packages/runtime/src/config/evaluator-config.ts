import { z } from "zod";

/**
 * What the evaluator does with a step in which a side-effecting call's
 * outcome is unknown after a crash (its intent was recorded, its outcome
 * never was, and the tool is not idempotent; docs/effects.md). Never
 * `retry`: a retry would perform the action again, which is what an
 * unknown outcome forbids.
 * - `escalate`: a person checks the action and answers with `rein reply`.
 * - `replan`: the planner is told which action may or may not have happened
 *   and plans from there (a step that checks it first), for deployments no
 *   one watches.
 * - `fail`: the run ends, naming the action.
 */
export const UnknownOutcomePolicy = z.enum(["escalate", "replan", "fail"]);
export type UnknownOutcomePolicy = z.infer<typeof UnknownOutcomePolicy>;

export const EvaluatorConfig = z.object({
  /** @defaultValue "escalate" */
  unknownOutcome: UnknownOutcomePolicy.default("escalate"),
});
export type EvaluatorConfig = z.infer<typeof EvaluatorConfig>;
