import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ReinError } from "@rein/contracts";
import { ScriptedProvider, tracedComplete } from "@rein/models";
import { observedLimitsOf, RateGate, RateLimitedProvider } from "@rein/models/rate-limit";
import { connectRedis, RedisRateLimiter } from "../../src/index.ts";
import { createTestRuntime, type TestRuntime, TEST_REDIS_URL } from "../../src/testing/index.ts";

const ENTRY = fileURLToPath(new URL("./reserve-and-die-entry.ts", import.meta.url));
const REPO_ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
const scope = { provider: "anthropic", model: "claude-test" };
const T = 1_700_000_000_000;

let first: TestRuntime;
let second: TestRuntime;
let a: RedisRateLimiter;
let b: RedisRateLimiter;
beforeEach(async () => {
  first = await createTestRuntime();
  // Another process of the same deployment: its own connection, the same prefix.
  second = await createTestRuntime({ prefix: first.keys.prefix });
  a = new RedisRateLimiter(first.redis, first.keys, { safetyMs: 0 });
  b = new RedisRateLimiter(second.redis, second.keys, { safetyMs: 0 });
});
afterEach(async () => {
  await second.close();
  await first.cleanup();
});

let ids = 0;
const nextId = () => {
  ids += 1;
  return `call-${ids}`;
};
const ask = (
  limiter: RedisRateLimiter,
  budget: Parameters<RedisRateLimiter["reserve"]>[1]["budget"],
  now: number,
  demand = { inputTokens: 10, outputTokens: 10 },
) => limiter.reserve(scope, { id: nextId(), demand, budget, leaseMs: 60_000, waitedMs: 0, now });
const serverNow = async (runtime: TestRuntime) => {
  const [seconds, micros] = await runtime.redis.time();
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
};

describe("one provider budget shared by every process", () => {
  it("grants two limiter instances no more than the requests per minute between them, then refills", async () => {
    const budget = { requestsPerMinute: 3 };
    expect(await ask(a, budget, T)).toEqual({ granted: true });
    expect(await ask(b, budget, T)).toEqual({ granted: true });
    expect(await ask(a, budget, T)).toEqual({ granted: true });
    expect(await ask(b, budget, T)).toEqual({ granted: false, waitMs: 20_000, reason: "requests" });
    expect(await ask(b, budget, T + 20_000)).toEqual({ granted: true });
  });

  it("settles a reservation with the tokens really used, so the next call fits", async () => {
    const budget = { inputTokensPerMinute: 1000 };
    const big = { inputTokens: 800, outputTokens: 0 };
    expect(await a.reserve(scope, { id: "first", demand: big, budget, leaseMs: 60_000, waitedMs: 0, now: T })).toEqual({ granted: true });
    expect(await ask(b, budget, T, big)).toMatchObject({ granted: false, reason: "input_tokens" });
    await a.settle(scope, "first", { inputTokens: 100, outputTokens: 0 }, budget, T);
    expect(await ask(b, budget, T, big)).toEqual({ granted: true });
    expect((await b.snapshot(scope, budget, T)).available.inputTokens).toBe(100);
  });

  it("frees the in-flight slot of a process killed while it held a reservation, once its lease ends", async () => {
    const leaseMs = 2_000;
    const child = spawn(process.execPath, ["--conditions=@rein/source", "--import", "tsx", ENTRY], {
      cwd: REPO_ROOT,
      env: { ...process.env, LIMIT_REDIS_URL: TEST_REDIS_URL, LIMIT_PREFIX: first.keys.prefix, LIMIT_LEASE_MS: String(leaseMs) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (chunk) => {
        output += chunk;
        if (output.includes("reserved")) resolve();
        else if (output.includes("refused")) reject(new Error(output));
      });
      child.stderr.on("data", (chunk) => (output += chunk));
      child.once("exit", () => reject(new Error(`the child exited before reserving:\n${output}`)));
    });
    child.kill("SIGKILL");
    await exited;

    const budget = { maxInFlight: 1 };
    const killedAt = await serverNow(first);
    const survivor = (now: number) =>
      a.reserve(scope, { id: "survivor", demand: { inputTokens: 10, outputTokens: 10 }, budget, leaseMs: 60_000, waitedMs: 0, now });
    expect(await survivor(killedAt)).toMatchObject({ granted: false, reason: "in_flight" });
    expect((await a.snapshot(scope, budget, killedAt)).inFlight).toBe(1);
    // Past the lease on the Redis server's clock, the one the child's reservation was stamped with.
    expect(await survivor(killedAt + leaseMs + 1)).toEqual({ granted: true });
  }, 60_000);
});

describe("the budget learned from the provider's headers", () => {
  it("lowers the budget to what the headers say is left, and to a lower stated limit, never above the configured one", async () => {
    const budget = { requestsPerMinute: 100, inputTokensPerMinute: 50_000 };
    // Anthropic's header names and formats: https://docs.anthropic.com/en/api/rate-limits
    const headers = new Headers({
      "anthropic-ratelimit-requests-limit": "1000",
      "anthropic-ratelimit-requests-remaining": "0",
      "anthropic-ratelimit-requests-reset": new Date(T + 60_000).toISOString(),
      "anthropic-ratelimit-input-tokens-limit": "20000",
      "anthropic-ratelimit-input-tokens-remaining": "20000",
    });
    await a.observe(scope, observedLimitsOf(headers, T) ?? {}, budget, T);
    expect(await ask(b, budget, T)).toEqual({ granted: false, waitMs: 600, reason: "requests" });
    const snapshot = await b.snapshot(scope, budget, T);
    expect(snapshot.learned.requests).toEqual({ limit: 1000, remaining: 0, at: T });
    // The stated 1000 requests stay capped at the configured 100; the stated 20000 input tokens lower the configured 50000.
    expect((await b.snapshot(scope, budget, T + 3_600_000)).available).toEqual({ requests: 100, inputTokens: 20_000 });
  });

  it("pauses every instance's calls to the model for a 429's retry-after", async () => {
    const budget = { requestsPerMinute: 100 };
    const gate = new RateGate(
      { limiter: a, scope, budget, leaseMs: 60_000, maxWaitMs: 60_000 },
      { demand: { inputTokens: 1, outputTokens: 1 } },
    );
    await gate.acquire();
    // A 429 as Anthropic sends it: https://docs.anthropic.com/en/api/rate-limits (retry-after in seconds).
    await gate.failed({ kind: "http", status: 429, errorType: "rate_limit_error", headers: new Headers({ "retry-after": "30" }) });
    const outcome = await b.reserve(scope, {
      id: "other",
      demand: { inputTokens: 1, outputTokens: 1 },
      budget,
      leaseMs: 60_000,
      waitedMs: 0,
    });
    expect(outcome).toMatchObject({ granted: false, reason: "paused" });
    expect(outcome.granted ? 0 : outcome.waitMs).toBeGreaterThan(29_000);
    expect(outcome.granted ? 0 : outcome.waitMs).toBeLessThanOrEqual(30_000);
    expect((await b.snapshot(scope, budget)).rateLimited).toBe(1);
  });
});

describe("a call that waits for the budget", () => {
  const worker = () => new ScriptedProvider({ worker: [{ turns: [{ text: "done" }] }] }, { name: "anthropic", model: "claude-test" });
  const request = {
    role: "worker" as const,
    system: "s",
    messages: [{ role: "user" as const, content: [{ type: "text" as const, text: "go" }] }],
  };

  it("waits for capacity, is traced as model.waited with how long and why, and is answered", async () => {
    const budget = { requestsPerMinute: 60 };
    const limited = new RateLimitedProvider(worker(), { limiter: a, budget, leaseMs: 60_000, maxWaitMs: 60_000, defaultMaxTokens: 100 });
    const spendAll = await a.snapshot(scope, budget);
    expect(spendAll.available.requests).toBe(60);
    await a.observe(scope, { requests: { remaining: 0 } }, budget);
    const response = await tracedComplete(limited, request, { trace: first.trace, runId: "run_wait" }, { deadline: Date.now() + 10_000 });
    expect(response.content).toEqual([{ type: "text", text: "done" }]);
    const events = await first.trace.read("run_wait");
    expect(events.map((event) => event.kind)).toEqual(["model.called", "model.waited", "model.responded"]);
    const waited = events[1];
    expect(waited?.payload).toMatchObject({ provider: "anthropic", model: "claude-test", reason: "requests", granted: true });
    expect(waited?.durationMs).toBeGreaterThan(0);
  });

  it("refuses at once with a typed error when the wait would pass the call's deadline, and says so in the trace", async () => {
    const budget = { requestsPerMinute: 1 };
    const limited = new RateLimitedProvider(worker(), { limiter: a, budget, leaseMs: 60_000, maxWaitMs: 600_000, defaultMaxTokens: 100 });
    await a.observe(scope, { requests: { remaining: 0 } }, budget);
    const started = Date.now();
    const failure = await tracedComplete(limited, request, { trace: first.trace, runId: "run_late" }, { deadline: started + 5_000 }).catch(
      (error: unknown) => error,
    );
    expect(ReinError.hasCode(failure, "budget_exhausted")).toBe(true);
    expect((failure as ReinError).message).toMatch(/has no rate budget \(requests\) for another \d+ s, longer than the \d s left/);
    const events = await first.trace.read("run_late");
    expect(events.map((event) => event.kind)).toEqual(["model.called", "model.waited", "model.failed"]);
    expect(events[1]?.payload).toMatchObject({ reason: "requests", granted: false });
  });
});

describe("the limiter's Redis traffic", () => {
  it("sends its scripts by SHA1 (EVALSHA), not a whole body with every model call", async () => {
    const watcher = connectRedis(TEST_REDIS_URL);
    const monitor = await watcher.monitor();
    const seen: string[] = [];
    monitor.on("monitor", (_time: string, args: string[]) => {
      if (args.some((arg) => arg.startsWith(first.keys.prefix))) seen.push(String(args[0]).toLowerCase());
    });
    try {
      for (let call = 0; call < 3; call += 1) await ask(a, { requestsPerMinute: 100 }, T);
      // A command after the asks, on the same connection: once MONITOR shows it, it has shown every ask.
      await first.redis.get(`${first.keys.prefix}:monitor-mark`);
      await expect.poll(() => seen.includes("get")).toBe(true);
    } finally {
      monitor.disconnect();
      watcher.disconnect();
    }
    const scripts = seen.filter((command) => command === "eval" || command === "evalsha");
    expect(scripts.length).toBeGreaterThanOrEqual(3);
    // The server may not have the script yet on the first call; after that it is always asked for by hash.
    expect(scripts.slice(1)).toEqual(scripts.slice(1).map(() => "evalsha"));
  });
});
