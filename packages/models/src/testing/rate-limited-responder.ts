import { estimateTextTokens } from "../token-estimate.ts";
import type { FakeReply, FakeResponder } from "./fake-model-server.ts";

export interface EmulatedRateLimitOptions {
  /** Whose headers and 429 body: Anthropic's or OpenAI's. */
  format: "anthropic" | "openai";
  requestsPerMinute: number;
  /** Input tokens (OpenAI: all tokens) per minute, counted as the scripted wire server reports usage. */
  inputTokensPerMinute?: number;
  now?: () => number;
}

interface Bucket {
  capacity: number;
  level: number;
  at: number;
}

/**
 * A provider's rate limit in front of a fake server's responder: token
 * buckets that refill continuously (Anthropic documents a token bucket), a
 * 429 with `retry-after` past them, and the remaining-capacity headers on
 * every reply in the provider's documented names and formats:
 * https://docs.anthropic.com/en/api/rate-limits (RFC 3339 resets) and
 * https://platform.openai.com/docs/guides/rate-limits (resets as "1s", "6m0s").
 */
export class EmulatedRateLimit {
  /** When each request was let through, and when each was refused with a 429. */
  readonly accepted: number[] = [];
  readonly refused: number[] = [];
  private readonly requests: Bucket;
  private readonly tokens: Bucket | undefined;
  private readonly now: () => number;

  constructor(private readonly options: EmulatedRateLimitOptions) {
    this.now = options.now ?? Date.now;
    const at = this.now();
    this.requests = { capacity: options.requestsPerMinute, level: options.requestsPerMinute, at };
    this.tokens = options.inputTokensPerMinute
      ? { capacity: options.inputTokensPerMinute, level: options.inputTokensPerMinute, at }
      : undefined;
  }

  wrap(inner: FakeResponder): FakeResponder {
    return async (request) => {
      const now = this.now();
      const tokens = estimateTextTokens(JSON.stringify(request.body));
      const buckets = [
        { bucket: this.requests, need: 1 },
        ...(this.tokens ? [{ bucket: this.tokens, need: Math.min(tokens, this.tokens.capacity) }] : []),
      ];
      for (const { bucket } of buckets) refill(bucket, now);
      const short = buckets.filter(({ bucket, need }) => bucket.level < need);
      if (short.length > 0) {
        this.refused.push(now);
        const waitMs = Math.max(...short.map(({ bucket, need }) => ((need - bucket.level) * 60_000) / bucket.capacity));
        return this.refusal(now, waitMs);
      }
      for (const { bucket, need } of buckets) bucket.level -= need;
      this.accepted.push(now);
      const reply = await inner(request);
      if ("reset" in reply) return reply;
      return { ...reply, headers: { ...reply.headers, ...this.headers(now) } } as FakeReply;
    };
  }

  private refusal(now: number, waitMs: number): FakeReply {
    const headers = { ...this.headers(now), "retry-after": String(Math.max(1, Math.ceil(waitMs / 1000))) };
    const message = "This request would exceed your organization's rate limit. Please wait before trying again.";
    return this.options.format === "anthropic"
      ? { status: 429, headers, json: { type: "error", error: { type: "rate_limit_error", message }, request_id: "req_rate_limited" } }
      : { status: 429, headers, json: { error: { message, type: "requests", param: null, code: "rate_limit_exceeded" } } };
  }

  private headers(now: number): Record<string, string> {
    const fields = (bucket: Bucket) => ({
      limit: String(bucket.capacity),
      remaining: String(Math.max(0, Math.floor(bucket.level))),
      untilFullMs: ((bucket.capacity - bucket.level) * 60_000) / bucket.capacity,
    });
    const requests = fields(this.requests);
    const tokens = this.tokens ? fields(this.tokens) : undefined;
    if (this.options.format === "anthropic") {
      const reset = (ms: number) => new Date(now + Math.ceil(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
      return {
        "anthropic-ratelimit-requests-limit": requests.limit,
        "anthropic-ratelimit-requests-remaining": requests.remaining,
        "anthropic-ratelimit-requests-reset": reset(requests.untilFullMs),
        ...(tokens
          ? {
              "anthropic-ratelimit-input-tokens-limit": tokens.limit,
              "anthropic-ratelimit-input-tokens-remaining": tokens.remaining,
              "anthropic-ratelimit-input-tokens-reset": reset(tokens.untilFullMs),
            }
          : {}),
      };
    }
    const duration = (ms: number) => `${Math.round(ms) / 1000}s`;
    return {
      "x-ratelimit-limit-requests": requests.limit,
      "x-ratelimit-remaining-requests": requests.remaining,
      "x-ratelimit-reset-requests": duration(requests.untilFullMs),
      ...(tokens
        ? {
            "x-ratelimit-limit-tokens": tokens.limit,
            "x-ratelimit-remaining-tokens": tokens.remaining,
            "x-ratelimit-reset-tokens": duration(tokens.untilFullMs),
          }
        : {}),
    };
  }
}

function refill(bucket: Bucket, now: number): void {
  bucket.level = Math.min(bucket.capacity, bucket.level + (Math.max(0, now - bucket.at) * bucket.capacity) / 60_000);
  bucket.at = now;
}
