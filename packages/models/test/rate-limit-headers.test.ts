import { describe, expect, it } from "vitest";
import { observedLimitsOf } from "../src/rate-limit/index.ts";
import { durationMs } from "../src/rate-limit/rate-limit-headers.ts";

const now = Date.parse("2025-08-21T12:40:30Z");

describe("what a response's rate-limit headers say", () => {
  // Names and formats from https://docs.anthropic.com/en/api/rate-limits: limit, remaining, and reset in RFC 3339,
  // per requests, tokens, input tokens and output tokens (the values are those of a recorded response).
  it("reads Anthropic's anthropic-ratelimit-* headers, resets in RFC 3339", () => {
    const headers = new Headers({
      "anthropic-ratelimit-requests-limit": "1000",
      "anthropic-ratelimit-requests-remaining": "999",
      "anthropic-ratelimit-requests-reset": "2025-08-21T12:40:59Z",
      "anthropic-ratelimit-input-tokens-limit": "80000",
      "anthropic-ratelimit-input-tokens-remaining": "79000",
      "anthropic-ratelimit-input-tokens-reset": "2025-08-21T12:40:59Z",
      "anthropic-ratelimit-output-tokens-limit": "16000",
      "anthropic-ratelimit-output-tokens-remaining": "16000",
      "anthropic-ratelimit-output-tokens-reset": "2025-08-21T12:41:00Z",
    });
    expect(observedLimitsOf(headers, now)).toEqual({
      requests: { limit: 1000, remaining: 999, resetAt: Date.parse("2025-08-21T12:40:59Z") },
      inputTokens: { limit: 80000, remaining: 79000, resetAt: Date.parse("2025-08-21T12:40:59Z") },
      outputTokens: { limit: 16000, remaining: 16000, resetAt: Date.parse("2025-08-21T12:41:00Z") },
    });
  });

  // Names and formats from https://platform.openai.com/docs/guides/rate-limits ("Rate limits in headers"):
  // x-ratelimit-{limit,remaining,reset}-{requests,tokens}, resets as durations such as "1s" and "6m0s".
  it("reads OpenAI's x-ratelimit-* headers, resets as durations", () => {
    const headers = new Headers({
      "x-ratelimit-limit-requests": "60",
      "x-ratelimit-limit-tokens": "150000",
      "x-ratelimit-remaining-requests": "59",
      "x-ratelimit-remaining-tokens": "149984",
      "x-ratelimit-reset-requests": "1s",
      "x-ratelimit-reset-tokens": "6m0s",
    });
    expect(observedLimitsOf(headers, now)).toEqual({
      requests: { limit: 60, remaining: 59, resetAt: now + 1000 },
      tokens: { limit: 150000, remaining: 149984, resetAt: now + 360_000 },
    });
  });

  it("reads durations in every unit OpenAI uses and refuses what is not one", () => {
    expect(durationMs("12ms")).toBe(12);
    expect(durationMs("2m59.56s")).toBe(179_560);
    expect(durationMs("1h2m")).toBe(3_720_000);
    expect(durationMs("soon")).toBeNaN();
  });

  it("says nothing for a response without them, or with Azure's -1 for 'not reported'", () => {
    expect(observedLimitsOf(new Headers({ "content-type": "application/json" }), now)).toBeUndefined();
    expect(observedLimitsOf(new Headers({ "x-ratelimit-remaining-tokens": "-1", "x-ratelimit-limit-tokens": "-1" }), now)).toBeUndefined();
  });
});
