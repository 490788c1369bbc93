import type { Price } from "../model-config.ts";
import { familyEntry } from "./family-entry.ts";
import type { Effort, ModelEntry } from "./model-entry.ts";

/**
 * Anthropic's models served on the Claude API, read 2026-12-03 from
 * platform.claude.com/docs/en: models/overview, each model's overview and
 * "What's new" page, build-with-claude/effort, about-claude/pricing (cache
 * writes by lifetime: 5 minutes, 1 hour; long-context pricing) and
 * about-claude/model-deprecations. Retired ids are in `retired-models.ts`.
 */

const upToMax: Effort[] = ["low", "medium", "high", "xhigh", "max"];

/** Input, output, cache read, 5-minute and 1-hour cache write, US dollars per million tokens. */
const price = (
  inputPerMTok: number,
  outputPerMTok: number,
  cacheReadPerMTok: number,
  cacheWritePerMTok: number,
  cacheWriteLongPerMTok: number,
): Price => ({
  inputPerMTok,
  outputPerMTok,
  cacheReadPerMTok,
  cacheWritePerMTok,
  cacheWriteLongPerMTok,
});

/**
 * What every Claude model from 4.7 on shares: the Messages API, structured
 * output through `output_config.format`, adaptive thinking with `effort`, a
 * 1M window and 128K output, and no sampling parameters (non-default
 * `temperature`, `top_p` or `top_k` return 400 since Opus 4.7 and Sonnet 5).
 * `defaultMaxTokens` leaves room for thinking, which counts against it.
 */
const claude5: Pick<
  ModelEntry,
  "provider" | "api" | "structuredOutput" | "sampling" | "contextWindow" | "maxOutputTokens" | "defaultMaxTokens"
> = {
  provider: "anthropic",
  api: "anthropic-messages",
  structuredOutput: "output_config",
  sampling: [],
  contextWindow: 1_000_000,
  maxOutputTokens: 128_000,
  defaultMaxTokens: 32_000,
};

/**
 * Claude 4.6 and earlier: forcing a tool allowed. No sampling parameters
 * either: API version 2026-10-21, which the installed SDK sends, refuses
 * `temperature`, `top_p` and `top_k` on every model, even at their defaults
 * (platform.claude.com/docs/en/api/versioning and the 2026-10-21 migration guide).
 */
const claude4: Pick<ModelEntry, "provider" | "api" | "structuredOutput" | "forcedToolUse" | "sampling"> = {
  provider: "anthropic",
  api: "anthropic-messages",
  structuredOutput: "output_config",
  forcedToolUse: true,
  sampling: [],
};

const docs = "platform.claude.com/docs/en";

const fable52: ModelEntry = {
  ...claude5,
  id: "claude-fable-5-2",
  forcedToolUse: false,
  thinking: { mode: "adaptive", efforts: upToMax, defaultEffort: "high" },
  price: price(8, 40, 0.2, 10, 16),
  status: "current",
  source: `${docs}/models/fable-5-2/whats-new-fable-5-2 (released 2026-11-09; forced tool choice, sampling and prefill as on Fable 5.1) and about-claude/pricing, read 2026-12-03`,
};

const opus55: ModelEntry = {
  ...claude5,
  id: "claude-opus-5-5",
  forcedToolUse: false,
  thinking: { mode: "adaptive", efforts: upToMax, defaultEffort: "medium" },
  price: price(4, 20, 0.2, 5, 8),
  status: "current",
  source: `${docs}/models/opus-5-5/overview (thinking always on, default effort medium; breaking: forced tool use returns an error) and build-with-claude/effort, read 2026-12-03`,
};

const sonnet55: ModelEntry = {
  ...claude5,
  id: "claude-sonnet-5-5",
  forcedToolUse: false,
  thinking: { mode: "adaptive", efforts: upToMax, defaultEffort: "high" },
  price: price(2, 10, 0.1, 2.5, 4),
  status: "current",
  source: `${docs}/models/sonnet-5-5/overview and whats-new-sonnet-5-5 (breaking: forced tool use returns an error) and about-claude/pricing (cache reads $0.10 since 2026-10-07), read 2026-12-03`,
};

const haiku55: ModelEntry = {
  ...claude5,
  id: "claude-haiku-5-5",
  forcedToolUse: true,
  thinking: { mode: "adaptive", efforts: upToMax, defaultEffort: "medium" },
  price: price(0.1, 0.5, 0.01, 0.125, 0.2),
  longContext: { aboveInputTokens: 100_000, price: price(0.5, 2.5, 0.05, 0.625, 1) },
  status: "current",
  source: `${docs}/models/haiku-5-5/whats-new-haiku-5-5 and migration-guide (non-default sampling parameters return an error), about-claude/pricing (long context pricing: prompts over 100K tokens), read 2026-12-03`,
};

/** Mythos models share their Fable's specifications and prices; they are served only to organizations Anthropic verifies. */
const mythos = (fable: ModelEntry, id: string, status: ModelEntry["status"]): ModelEntry => ({
  ...fable,
  id,
  status,
  source: `${docs}/models/fable-5/overview ("Fable vs. Mythos": same specifications and pricing, verified organizations only) and ${fable.id}'s page, read 2026-12-03`,
});

const fable51: ModelEntry = {
  ...fable52,
  id: "claude-fable-5-1",
  price: price(10, 50, 0.25, 12.5, 20),
  status: "legacy",
  source: `${docs}/models/fable-5-1/whats-new-fable-5-1 (breaking from Fable 5: forced tool use returns an error) and about-claude/pricing, read 2026-12-03`,
};

const fable5: ModelEntry = {
  ...fable51,
  id: "claude-fable-5",
  forcedToolUse: true,
  price: price(10, 50, 1, 12.5, 20),
  source: `${docs}/models/fable-5/overview (legacy) and about-claude/pricing, read 2026-12-03`,
};

/** Adaptive thinking from effort `low` to `max` (with `xhigh`), default `high`: Opus 4.7 to Opus 5 and Sonnet 5. */
const adaptiveHigh: ModelEntry["thinking"] = { mode: "adaptive", efforts: upToMax, defaultEffort: "high" };

const legacyClaude5: ModelEntry[] = [
  {
    ...claude5,
    id: "claude-opus-5",
    forcedToolUse: true,
    thinking: adaptiveHigh,
    price: price(5, 25, 0.5, 6.25, 10),
    status: "legacy",
    source: `${docs}/models/opus-5/overview (legacy; retirement not sooner than 2027-07-24) and models/opus-5-5/overview (forced tool use is breaking from Opus 5), read 2026-12-03`,
  },
  {
    ...claude5,
    id: "claude-sonnet-5",
    forcedToolUse: true,
    thinking: adaptiveHigh,
    price: price(2, 10, 0.2, 2.5, 4),
    status: "legacy",
    source: `${docs}/models/sonnet-5/migration-guide (non-default sampling parameters return 400) and models/sonnet-5-5/overview, read 2026-12-03`,
  },
  ...["claude-opus-4-8", "claude-opus-4-7"].map(
    (id): ModelEntry => ({
      ...claude5,
      id,
      forcedToolUse: true,
      thinking: adaptiveHigh,
      price: price(5, 25, 0.5, 6.25, 10),
      status: "legacy",
      source: `${docs}/about-claude/models/migration-guide (Opus 4.7: sampling parameters removed, adaptive thinking only, xhigh added), build-with-claude/effort and about-claude/pricing, read 2026-12-03`,
    }),
  ),
];

const legacyClaude4: ModelEntry[] = [
  {
    ...claude4,
    id: "claude-opus-4-6",
    thinking: { mode: "adaptive", efforts: ["low", "medium", "high", "max"], defaultEffort: "high" },
    contextWindow: 1_000_000,
    maxOutputTokens: 128_000,
    defaultMaxTokens: 32_000,
    price: price(5, 25, 0.5, 6.25, 10),
    status: "legacy",
    source: `${docs}/build-with-claude/effort (max but not xhigh on Opus 4.6) and about-claude/pricing, read 2026-12-03`,
  },
  {
    ...claude4,
    id: "claude-sonnet-4-6",
    thinking: { mode: "adaptive", efforts: ["low", "medium", "high", "max"], defaultEffort: "high" },
    contextWindow: 1_000_000,
    maxOutputTokens: 64_000,
    defaultMaxTokens: 16_000,
    price: price(3, 15, 0.3, 3.75, 6),
    status: "legacy",
    source: `${docs}/build-with-claude/effort (max but not xhigh on Sonnet 4.6) and about-claude/pricing, read 2026-12-03`,
  },
  {
    ...claude4,
    id: "claude-opus-4-5",
    // Extended thinking with a token budget only, which Rein does not send; effort works without thinking.
    thinking: { mode: "none", efforts: ["low", "medium", "high"], defaultEffort: "high" },
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
    defaultMaxTokens: 16_000,
    price: price(5, 25, 0.5, 6.25, 10),
    retires: "2027-01-22",
    status: "legacy",
    source: `${docs}/about-claude/model-deprecations (deprecated 2026-11-23, retires 2027-01-22, replacement claude-opus-5-5), build-with-claude/effort and the SDK's deprecated-models data, read 2026-12-03`,
  },
  {
    ...claude4,
    id: "claude-haiku-4-5",
    thinking: { mode: "none", efforts: [] },
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
    defaultMaxTokens: 16_000,
    price: price(1, 5, 0.1, 1.25, 2),
    status: "legacy",
    source: `${docs}/models/overview (extended thinking, no effort) and about-claude/pricing, read 2026-12-03`,
  },
];

export const anthropicModels: readonly ModelEntry[] = [
  fable52,
  mythos(fable52, "claude-mythos-5-2", "current"),
  opus55,
  sonnet55,
  haiku55,
  fable51,
  mythos(fable51, "claude-mythos-5-1", "legacy"),
  fable5,
  mythos(fable5, "claude-mythos-5", "legacy"),
  ...legacyClaude5,
  ...legacyClaude4,
  familyEntry("claude-fable-5-*", fable52),
  familyEntry("claude-mythos-5-*", mythos(fable52, "claude-mythos-5-2", "current")),
  familyEntry("claude-opus-5-*", opus55),
  familyEntry("claude-sonnet-5-*", sonnet55),
  familyEntry("claude-haiku-5-*", haiku55),
];
