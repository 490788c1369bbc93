import { z } from "zod";
import { EnvName } from "@rein/contracts";
import { RateLimits } from "./rate-limit/rate-limits-config.ts";

export { RateBudget, RateLimits } from "./rate-limit/rate-limits-config.ts";

// The models' piece of config: providers, what each role calls, prices.

export const ProviderKind = z.enum(["anthropic", "openai", "openai-compatible", "scripted", "replay"]);
export type ProviderKind = z.infer<typeof ProviderKind>;

export const ProviderConfig = z.object({
  kind: ProviderKind,
  baseURL: z.string().url().optional(),
  /** The *name* of the environment variable holding the key, never the key. */
  apiKeyEnv: EnvName.optional(),
  /** For `scripted`: the script file. */
  script: z.string().optional(),
  /** For `openai-compatible`: native JSON mode name ("json_schema" or "json_object"). */
  structuredOutput: z.enum(["json_schema", "json_object", "none"]).optional(),
  maxRetries: z.number().int().nonnegative().default(4),
  /** The account's rate budget, shared by the whole fleet through Redis and lowered by what the provider's headers say (docs/models.md). */
  limits: RateLimits.optional(),
});
export type ProviderConfig = z.infer<typeof ProviderConfig>;

export const RoleModelConfig = z.object({
  provider: z.string().min(1),
  model: z.string().min(1),
  /** Output tokens per call, thinking included. @defaultValue the model catalogue's `defaultMaxTokens` (4096 for a model it does not know) */
  maxTokens: z.number().int().positive().optional(),
  /**
   * How deeply the model reasons (Anthropic `output_config.effort`, OpenAI
   * `reasoning.effort`). Checked at startup against the values the model
   * accepts. @defaultValue the provider's own default
   */
  effort: z.enum(["none", "minimal", "low", "medium", "high", "xhigh", "max"]).optional(),
  /** Refused at startup for a model the catalogue says takes no temperature (Claude 5.5, OpenAI's reasoning models). */
  temperature: z.number().min(0).max(2).optional(),
  timeoutMs: z.number().int().positive().default(120_000),
  /** Tokens the prompt compiler may spend on context before it drops old observations. */
  contextTokens: z.number().int().positive().default(100_000),
});
export type RoleModelConfig = z.infer<typeof RoleModelConfig>;

const PriceRates = z.object({
  inputPerMTok: z.number().nonnegative(),
  outputPerMTok: z.number().nonnegative(),
  cacheReadPerMTok: z.number().nonnegative().default(0),
  /** Short-lived cache writes: Anthropic's 5-minute ones, OpenAI's 30-minute ones. */
  cacheWritePerMTok: z.number().nonnegative().default(0),
  /** Long-lived cache writes: Anthropic's 1-hour ones, OpenAI's 12-hour ones. @defaultValue cacheWritePerMTok */
  cacheWriteLongPerMTok: z.number().nonnegative().optional(),
});

/** US dollars per million tokens. */
export const Price = PriceRates.extend({
  /**
   * The rates of a whole request whose prompt (input, cache reads and cache
   * writes) is above `aboveInputTokens`, output included: Claude Haiku 5.5
   * above 100K, OpenAI's GPT-5.4 and later above 272K.
   */
  longContext: z.object({ aboveInputTokens: z.number().int().positive(), price: PriceRates }).optional(),
});
export type Price = z.infer<typeof Price>;
