import type { ModelEntry } from "./model-entry.ts";

/**
 * OpenAI's models. Sources: developers.openai.com/api/docs/models, the GPT-6
 * launch guide, the pricing and deprecations pages, and the `openai` SDK's
 * model list (`resources/shared.ts`).
 */
export const openAIModels: readonly ModelEntry[] = [
  {
    id: "gpt-6-sol",
    provider: "openai",
    api: "openai-responses",
    structuredOutput: "json_schema",
    forcedToolUse: true,
    thinking: { mode: "reasoning", efforts: ["none", "low", "medium", "high", "xhigh"], defaultEffort: "medium" },
    sampling: [],
    contextWindow: 1_050_000,
    maxOutputTokens: 128_000,
    defaultMaxTokens: 32_000,
    status: "current",
    source: "developers.openai.com/api/docs/guides/latest-model, read 2026-12-03",
  },
];
