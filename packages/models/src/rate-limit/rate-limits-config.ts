import { z } from "zod";

const perMinute = z.number().int().positive().optional();

/** One budget: what the provider allows per minute and at once. An absent dimension is not limited by Rein (unless learned). */
export const RateBudget = z.object({
  requestsPerMinute: perMinute,
  inputTokensPerMinute: perMinute,
  outputTokensPerMinute: perMinute,
  /** Input and output together, for providers that count them as one (OpenAI's TPM). */
  tokensPerMinute: perMinute,
  maxInFlight: z.number().int().positive().optional(),
});
export type RateBudget = z.infer<typeof RateBudget>;

/**
 * `providers.<name>.limits`: the account's budget, shared by every process of
 * the deployment through Redis. Each model of the provider has its own budget
 * (providers limit per model or model class); `models` sets one apart. Present
 * with no numbers, Rein limits by what the provider's headers say alone.
 */
export const RateLimits = RateBudget.extend({
  models: z.record(z.string(), RateBudget).default({}),
  /** The longest a call waits for capacity when its caller sets no deadline (planner, evaluator). */
  maxWaitMs: z.number().int().positive().default(600_000),
  /** How long a reservation holds its in-flight slot if its process dies before settling; longer than any call. */
  leaseMs: z.number().int().positive().default(600_000),
});
export type RateLimits = z.infer<typeof RateLimits>;

/** The budget of one model: the model's own where `models` names it, else the provider's. */
export function budgetFor(limits: RateLimits, model: string): RateBudget {
  const { models, maxWaitMs: _wait, leaseMs: _lease, ...shared } = limits;
  return models[model] ?? shared;
}
