import type { ModelEntry } from "./model-entry.ts";

/**
 * Anthropic's models. Sources: platform.claude.com/docs/en/about-claude/models/overview,
 * each model's overview and "What's new" page, and the pricing page.
 */
export const anthropicModels: readonly ModelEntry[] = [
  {
    id: "claude-sonnet-5-5",
    provider: "anthropic",
    api: "anthropic-messages",
    structuredOutput: "output_config",
    forcedToolUse: false,
    thinking: { mode: "adaptive", efforts: ["low", "medium", "high", "xhigh", "max"], defaultEffort: "high" },
    sampling: [],
    contextWindow: 1_000_000,
    maxOutputTokens: 128_000,
    defaultMaxTokens: 32_000,
    price: { inputPerMTok: 2, outputPerMTok: 10, cacheReadPerMTok: 0.1, cacheWritePerMTok: 2.5, cacheWriteLongPerMTok: 4 },
    status: "current",
    source: "platform.claude.com/docs/en/models/sonnet-5-5/whats-new-sonnet-5-5 and models/sonnet-5/overview (comparison table), read 2026-12-03",
  },
];
