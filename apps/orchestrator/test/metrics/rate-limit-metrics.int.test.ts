import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApprovalStore, RedisRateLimiter } from "@rein/runtime";
import { createTestRuntime, type TestRuntime } from "@rein/runtime/testing";
import { queueOverview } from "../../src/api/queue-overview.ts";
import { RunLister } from "../../src/api/run-summaries.ts";
import { renderMetrics } from "../../src/metrics/metrics-exposition.ts";
import { TraceFold } from "../../src/metrics/trace-fold.ts";

const limited = { provider: "claude", model: "claude-sonnet-5-5" };
// Another process limited this model from headers alone: this process's config does not name it.
const learnedOnly = { provider: "gpt", model: "gpt-6.2-sol" };
const budget = { requestsPerMinute: 60, inputTokensPerMinute: 30_000, outputTokensPerMinute: 8_000, maxInFlight: 4 };
const demand = { inputTokens: 1_000, outputTokens: 500 };

// What every process of the fleet wrote through its own limiter, read back by whichever process is scraped.
describe("the fleet's rate budget, as operators see it", () => {
  let runtime: TestRuntime;
  beforeAll(async () => {
    runtime = await createTestRuntime({
      providers: { claude: { kind: "anthropic", apiKeyEnv: "CLAUDE_KEY", limits: budget } },
      roles: { worker: { provider: "claude", model: "claude-sonnet-5-5" } },
    });
    const writer = new RedisRateLimiter(runtime.redis, runtime.keys);
    const request = (id: string, waitedMs: number) => ({ id, demand, budget, leaseMs: 60_000, waitedMs, runId: "run_a" });
    expect(await writer.reserve(limited, request("call_1", 0))).toEqual({ granted: true });
    expect(await writer.reserve(limited, request("call_2", 1_500))).toEqual({ granted: true });
    await writer.settle(limited, "call_1", { inputTokens: 800, outputTokens: 200 }, budget);
    // Anthropic's headers said the model allows 50 requests a minute, 45 of them left (learned, below the configured 60).
    await writer.observe(limited, { requests: { limit: 50, remaining: 45 } }, budget);
    // Two 429s; the pause outlasts the test, so it is still running when /metrics is read however slow the machine.
    await writer.pause(limited, 600_000);
    await writer.pause(limited, 1_000);
    expect(await writer.reserve(learnedOnly, { ...request("call_3", 250), budget: {} })).toEqual({ granted: true });
    await writer.observe(learnedOnly, { tokens: { limit: 90_000, remaining: 80_000 } }, {});
  });
  afterAll(async () => {
    await runtime?.cleanup();
  });

  it("is in /metrics: budgets configured and learned, use, waits and 429s per provider and model", async () => {
    const { body } = await renderMetrics({
      runtime,
      approvals: new ApprovalStore(runtime.redis, runtime.keys, { ttlSeconds: 60 }),
      runs: new RunLister(runtime),
      fold: new TraceFold(runtime),
    });
    const sample = (line: string) => {
      const found = body.split("\n").find((row) => row.startsWith(`${line} `));
      expect(found, `${line} in\n${body}`).toBeDefined();
      return Number(found?.slice(found.lastIndexOf(" ") + 1));
    };
    const claude = 'provider="claude",model="claude-sonnet-5-5"';
    expect(sample(`rein_rate_limit_budget{${claude},dimension="requests",source="configured"}`)).toBe(60);
    expect(sample(`rein_rate_limit_budget{${claude},dimension="requests",source="learned"}`)).toBe(50);
    expect(sample(`rein_rate_limit_budget{${claude},dimension="input_tokens",source="configured"}`)).toBe(30_000);
    expect(sample(`rein_rate_limit_budget{${claude},dimension="output_tokens",source="configured"}`)).toBe(8_000);
    expect(sample(`rein_rate_limit_budget{${claude},dimension="in_flight",source="configured"}`)).toBe(4);
    // call_1 settled, call_2 still holds its slot.
    expect(sample(`rein_rate_limit_in_flight{${claude}}`)).toBe(1);
    // The headers' 45 left is the most that may be spent now; use is the learned 50 less that.
    expect(sample(`rein_rate_limit_available{${claude},dimension="requests"}`)).toBeLessThanOrEqual(45);
    expect(sample(`rein_rate_limit_used{${claude},dimension="requests"}`)).toBeGreaterThanOrEqual(5);
    expect(sample(`rein_rate_limit_grants_total{${claude}}`)).toBe(2);
    expect(sample(`rein_rate_limit_waits_total{${claude}}`)).toBe(1);
    expect(sample(`rein_rate_limit_wait_seconds_total{${claude}}`)).toBe(1.5);
    expect(sample(`rein_rate_limit_429_total{${claude}}`)).toBe(2);
    // The shorter second pause does not cut the first one short.
    expect(sample(`rein_rate_limit_paused_seconds{${claude}}`)).toBeGreaterThan(1);

    const gpt = 'provider="gpt",model="gpt-6.2-sol"';
    expect(sample(`rein_rate_limit_budget{${gpt},dimension="tokens",source="learned"}`)).toBe(90_000);
    expect(body).not.toContain(`rein_rate_limit_budget{${gpt},dimension="tokens",source="configured"}`);
    expect(sample(`rein_rate_limit_waits_total{${gpt}}`)).toBe(1);
    expect(sample(`rein_rate_limit_429_total{${gpt}}`)).toBe(0);
  });

  it("is in GET /queues: each limited model's budget, use, waits and 429s", async () => {
    const overview = await queueOverview(runtime);
    expect(overview.rateLimits.map(({ provider, model }) => `${provider}/${model}`)).toEqual([
      "claude/claude-sonnet-5-5",
      "gpt/gpt-6.2-sol",
    ]);
    expect(overview.rateLimits[0]).toMatchObject({
      configured: budget,
      learned: { requests: { limit: 50, remaining: 45 } },
      inFlight: 1,
      granted: 2,
      waits: 1,
      waitedMs: 1_500,
      rateLimited: 2,
    });
    expect(overview.rateLimits[1]).toMatchObject({ configured: {}, learned: { tokens: { limit: 90_000 } }, waits: 1, rateLimited: 0 });
  });
});
