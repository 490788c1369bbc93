/** A thinking configuration type of the Messages API (`thinking.type`). */
export type ThinkingType = "adaptive" | "enabled" | "disabled" | "between_tools";

/**
 * What the emulator holds true of one model, each fact read from that
 * model's documentation page (named in `source`). Kept apart from Rein's
 * model catalogue on purpose: the emulator is the oracle the adapter is
 * checked against, so it must not read the adapter's own data.
 */
export interface EmulatedModel {
  /** The most `max_tokens` may be. */
  maxOutputTokens: number;
  /** A cache breakpoint on a shorter prefix caches nothing, without an error. */
  minCacheableTokens: number;
  /** Whether `tool_choice` `any` and `tool` are accepted. */
  forcedToolUse: boolean;
  /** Whether non-default `temperature`, `top_p`, `top_k` are accepted (API version 2023-06-01 only). */
  samplingParameters: boolean;
  /** `thinking.type` values accepted; a request without `thinking` runs the first. */
  thinkingTypes: ThinkingType[];
  /** `output_config.effort` values accepted. */
  efforts: string[];
  /** What `thinking.display` is when the request does not set it. */
  defaultDisplay: "summarized" | "omitted";
  /** Whether a last assistant message (prefill) is accepted. */
  prefill: boolean;
  /** Other models whose thinking blocks this one reads; any other model's blocks are dropped. */
  readsThinkingOf: string[];
  source: string;
}

const efforts = ["low", "medium", "high", "xhigh", "max"];

/** The models the emulator serves unless its options add or replace some. */
export const emulatedModels: Readonly<Record<string, EmulatedModel>> = {
  "claude-sonnet-5-5": {
    maxOutputTokens: 128_000,
    minCacheableTokens: 512,
    forcedToolUse: false,
    samplingParameters: false,
    thinkingTypes: ["adaptive", "between_tools"],
    efforts,
    defaultDisplay: "omitted",
    prefill: false,
    readsThinkingOf: [
      "claude-sonnet-5",
      "claude-opus-4-8",
      "claude-opus-4-7",
      "claude-opus-4-6",
      "claude-sonnet-4-6",
      "claude-sonnet-4-5",
      "claude-haiku-4-5",
    ],
    source:
      "https://platform.claude.com/docs/en/models/sonnet-5-5/whats-new-sonnet-5-5 and https://platform.claude.com/docs/en/models/sonnet-5-5/migration-guide",
  },
  "claude-opus-5-5": {
    maxOutputTokens: 128_000,
    minCacheableTokens: 512,
    forcedToolUse: false,
    samplingParameters: false,
    thinkingTypes: ["adaptive"],
    efforts,
    defaultDisplay: "omitted",
    prefill: false,
    readsThinkingOf: [
      "claude-opus-5",
      "claude-sonnet-5-5",
      "claude-sonnet-5",
      "claude-opus-4-8",
      "claude-opus-4-7",
      "claude-opus-4-6",
      "claude-sonnet-4-6",
      "claude-haiku-4-5",
    ],
    source: "https://platform.claude.com/docs/en/models/opus-5-5/whats-new-opus-5-5",
  },
  "claude-sonnet-5": {
    maxOutputTokens: 128_000,
    minCacheableTokens: 1_024,
    forcedToolUse: true,
    samplingParameters: false,
    thinkingTypes: ["adaptive", "disabled"],
    efforts,
    defaultDisplay: "omitted",
    prefill: false,
    readsThinkingOf: [
      "claude-opus-4-8",
      "claude-opus-4-7",
      "claude-opus-4-6",
      "claude-sonnet-4-6",
      "claude-sonnet-4-5",
      "claude-haiku-4-5",
    ],
    source:
      "https://platform.claude.com/docs/en/models/sonnet-5-5/migration-guide (the Claude Sonnet 5 rows) and https://platform.claude.com/docs/en/build-with-claude/prompt-caching#cache-limitations",
  },
};
