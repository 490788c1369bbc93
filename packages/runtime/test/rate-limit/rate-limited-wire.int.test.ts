import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RateLimitedProvider } from "@rein/models/rate-limit";
import { AnthropicProvider } from "@rein/models/anthropic";
import { anthropicWireFailure, EmulatedRateLimit, type FakeServer, startScriptedWireServer } from "@rein/models/testing";
import { RedisRateLimiter } from "../../src/index.ts";
import { createTestRuntime, type TestRuntime } from "../../src/testing/index.ts";

const model = "claude-test";
const script = { worker: [{ turns: [{ text: "done" }], repeatLast: true }] };
const request = {
  role: "worker" as const,
  system: "s",
  messages: [{ role: "user" as const, content: [{ type: "text" as const, text: "go" }] }],
};

let runtime: TestRuntime;
let server: FakeServer;
let limiter: RedisRateLimiter;
let emulated: EmulatedRateLimit;
beforeEach(async () => {
  runtime = await createTestRuntime();
  limiter = new RedisRateLimiter(runtime.redis, runtime.keys);
  emulated = new EmulatedRateLimit({ format: "anthropic", requestsPerMinute: 600, inputTokensPerMinute: 100_000 });
  server = await startScriptedWireServer({ format: "anthropic", role: "worker", script, model, wrap: (respond) => emulated.wrap(respond) });
});
afterEach(async () => {
  await server.stop();
  await runtime.cleanup();
});

// No retries of its own: whatever waits here is the rate gate's.
const adapter = () =>
  new AnthropicProvider({ name: "anthropic", model, apiKey: "sk-test", baseURL: server.baseURL, retry: { maxRetries: 0 } });
const limited = () =>
  new RateLimitedProvider(adapter(), { limiter, budget: {}, leaseMs: 60_000, maxWaitMs: 60_000, defaultMaxTokens: 100 });

describe("the rate gate over the wire, through the official SDK", () => {
  it("does not fail a call on a 429: the fleet pauses for its retry-after and the call is answered", async () => {
    // The documented 429: rate_limit_error with retry-after in seconds (https://docs.anthropic.com/en/api/rate-limits).
    server.queue(anthropicWireFailure("rate_limited"));
    await expect(adapter().complete(request)).rejects.toThrow(/HTTP 429/);

    server.queue(anthropicWireFailure("rate_limited"));
    const waits: unknown[] = [];
    const response = await limited().complete(request, { onWaited: (wait) => void waits.push(wait) });
    expect(response.content).toEqual([{ type: "text", text: "done" }]);
    expect(response.retries).toBe(1);
    expect(waits).toEqual([expect.objectContaining({ reason: "paused", granted: true })]);
    expect((await limiter.snapshot({ provider: "anthropic", model }, {})).rateLimited).toBe(1);
  });

  it("learns the account's limits from the response headers with no limits configured", async () => {
    await limited().complete(request);
    const snapshot = await limiter.snapshot({ provider: "anthropic", model }, {});
    expect(snapshot.learned.requests).toMatchObject({ limit: 600, remaining: 599 });
    expect(snapshot.learned.inputTokens?.limit).toBe(100_000);
    expect(snapshot.available.requests).toBeLessThanOrEqual(599);
  });
});
