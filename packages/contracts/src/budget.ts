import { z } from "zod";

/** Limits for a whole run. The controller checks them before it enqueues anything. */
export const RunBudget = z.object({
  /** @defaultValue 20 */
  maxSteps: z.number().int().positive().default(20),
  /** @defaultValue 500_000 */
  maxTokens: z.number().int().positive().default(500_000),
  /** @defaultValue 5 (US dollars) */
  maxCostUsd: z.number().nonnegative().default(5),
  /** @defaultValue 30 minutes */
  maxWallMs: z
    .number()
    .int()
    .positive()
    .default(30 * 60_000),
});
export type RunBudget = z.infer<typeof RunBudget>;

/** Limits for one step, enforced by the worker loop and the tool executor. */
export const StepBudget = z.object({
  /** @defaultValue 12 */
  maxTurns: z.number().int().positive().default(12),
  /** @defaultValue 30 */
  maxToolCalls: z.number().int().positive().default(30),
  /** @defaultValue 200_000 */
  maxTokens: z.number().int().positive().default(200_000),
  /** @defaultValue 5 minutes */
  maxMs: z
    .number()
    .int()
    .positive()
    .default(5 * 60_000),
  /** US dollars; the controller sets it to what the run has left when it makes the step's packet. */
  maxCostUsd: z.number().nonnegative().optional(),
});
export type StepBudget = z.infer<typeof StepBudget>;

export const BudgetSpent = z.object({
  steps: z.number().int().nonnegative(),
  tokens: z.number().int().nonnegative(),
  costUsd: z.number().nonnegative(),
});
export type BudgetSpent = z.infer<typeof BudgetSpent>;
