import type { ObservedDimension, ObservedLimits, RateDimension } from "./rate-limiter.ts";

// Anthropic: anthropic-ratelimit-<dimension>-{limit,remaining,reset}, reset in RFC 3339
// (https://docs.anthropic.com/en/api/rate-limits). OpenAI: x-ratelimit-{limit,remaining,reset}-<dimension>,
// reset as a duration such as "1s", "6m0s" or "12ms" (https://platform.openai.com/docs/guides/rate-limits).
const anthropicDimensions: Record<RateDimension, string> = {
  requests: "requests",
  tokens: "tokens",
  inputTokens: "input-tokens",
  outputTokens: "output-tokens",
};
const openAIDimensions: Partial<Record<RateDimension, string>> = { requests: "requests", tokens: "tokens" };

/**
 * The rate-limit state a response's headers state, Anthropic's or OpenAI's
 * (and compatible servers' that copy OpenAI's); undefined when they state none.
 */
export function observedLimitsOf(headers: Headers, now: number = Date.now()): ObservedLimits | undefined {
  const observed: ObservedLimits = {};
  for (const [dimension, name] of Object.entries(anthropicDimensions) as [RateDimension, string][]) {
    const read = dimensionOf(
      headers,
      (field) => `anthropic-ratelimit-${name}-${field}`,
      (value) => Date.parse(value),
    );
    if (read) observed[dimension] = read;
  }
  for (const [dimension, name] of Object.entries(openAIDimensions) as [RateDimension, string][]) {
    if (observed[dimension]) continue;
    const read = dimensionOf(
      headers,
      (field) => `x-ratelimit-${field}-${name}`,
      (value) => now + durationMs(value),
    );
    if (read) observed[dimension] = read;
  }
  return Object.keys(observed).length > 0 ? observed : undefined;
}

function dimensionOf(headers: Headers, name: (field: string) => string, resetAt: (value: string) => number): ObservedDimension | undefined {
  const limit = count(headers.get(name("limit")));
  const remaining = count(headers.get(name("remaining")));
  const reset = headers.get(name("reset"));
  const at = reset === null ? Number.NaN : resetAt(reset);
  if (limit === undefined && remaining === undefined) return undefined;
  return {
    ...(limit !== undefined ? { limit } : {}),
    ...(remaining !== undefined ? { remaining } : {}),
    ...(Number.isFinite(at) ? { resetAt: at } : {}),
  };
}

// Azure's Responses API sends -1 for "not reported"; a negative count means nothing.
function count(value: string | null): number | undefined {
  if (value === null || !/^\s*\d+(\.\d+)?\s*$/.test(value)) return undefined;
  return Math.floor(Number.parseFloat(value));
}

/** OpenAI's reset duration: units h, m, s, ms in sequence ("6m0s", "2m59.56s", "12ms"); NaN when it is not one. */
export function durationMs(value: string): number {
  const units: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };
  const parts = [...value.trim().matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)];
  if (parts.length === 0 || parts.map((part) => part[0]).join("") !== value.trim()) return Number.NaN;
  return parts.reduce((total, [, amount, unit]) => total + Number.parseFloat(amount ?? "0") * (units[unit ?? ""] ?? 0), 0);
}
