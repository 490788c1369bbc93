import { z } from "zod";
import { ModelApi } from "@rein/contracts/model";
import { Price } from "../model-config.ts";

/** How deeply a model reasons: Anthropic's `output_config.effort`, OpenAI's `reasoning.effort`. */
export const Effort = z.enum(["none", "minimal", "low", "medium", "high", "xhigh", "max"]);
export type Effort = z.infer<typeof Effort>;

/**
 * How a model is asked for JSON matching a schema: Anthropic's
 * `output_config.format`, a forced tool (only where the model still allows
 * forcing one), OpenAI's strict `json_schema` format, a JSON mode without a
 * schema, or only the prompt.
 */
export const StructuredOutputMethod = z.enum(["output_config", "forced_tool", "json_schema", "json_object", "prompt"]);
export type StructuredOutputMethod = z.infer<typeof StructuredOutputMethod>;

export const SamplingParameter = z.enum(["temperature", "top_p", "top_k"]);
export type SamplingParameter = z.infer<typeof SamplingParameter>;

/**
 * What one model accepts and costs, as data: adapters read it to shape each
 * request, config is checked against it at startup, `rein models` prints it.
 * A new model is one entry (see docs/models.md).
 */
export const ModelEntry = z.object({
  /** The model id, or for a family entry the id pattern it covers (`*` matches any run of characters). */
  id: z.string().min(1),
  provider: z.enum(["anthropic", "openai"]),
  api: ModelApi,
  structuredOutput: StructuredOutputMethod,
  /** Whether `tool_choice` may name one tool (Claude 5.5 refuses it). */
  forcedToolUse: z.boolean(),
  thinking: z.object({
    /** `adaptive`: Anthropic's adaptive thinking; `reasoning`: OpenAI's reasoning models; `none`: no thinking parameter at all. */
    mode: z.enum(["adaptive", "reasoning", "none"]),
    /** Effort values the model accepts; empty means no effort parameter is sent. */
    efforts: z.array(Effort),
    /** What the provider uses when none is sent. */
    defaultEffort: Effort.optional(),
  }),
  /** Sampling parameters the model accepts; any other one is refused at startup. */
  sampling: z.array(SamplingParameter),
  /**
   * Sampling parameters accepted only while the model does not reason
   * (effort `none`, set or its default), as OpenAI's GPT-5.1+, GPT-6 Sol
   * and Luna take `temperature` and `top_p`.
   */
  samplingWhenEffortNone: z.array(SamplingParameter).optional(),
  contextWindow: z.number().int().positive(),
  maxOutputTokens: z.number().int().positive(),
  /** `max_tokens` when a role sets none: room for thinking and the answer. */
  defaultMaxTokens: z.number().int().positive(),
  price: Price.optional(),
  /** Prompts above `aboveInputTokens` are billed at `price` instead (long-context tier). */
  longContext: z.object({ aboveInputTokens: z.number().int().positive(), price: Price }).optional(),
  /** When the provider stops serving it (YYYY-MM-DD), from its deprecations page or SDK data. */
  retires: z.iso.date().optional(),
  /** `current`: recommended today; `legacy`: still served, not a default. */
  status: z.enum(["current", "legacy"]),
  /** Where the entry's facts were read, and when. */
  source: z.string().min(1),
});
export type ModelEntry = z.infer<typeof ModelEntry>;
