import type { Server } from "node:http";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApprovalStore, RedisRateLimiter } from "@rein/runtime";
import { createTestRuntime, type TestRuntime } from "@rein/runtime/testing";
import { ApprovalSigner, generateKeyPair } from "@rein/signing";
import { closeNow, listenApi } from "../support/api-server.ts";
import { chromiumMissing, launchChromium } from "../support/system-chromium.ts";

const token = "queues-rate-limits-token-0123456789";
const scope = { provider: "claude", model: "claude-sonnet-5-5" };
const budget = { requestsPerMinute: 60, inputTokensPerMinute: 30_000, maxInFlight: 4 };
const PAUSE_MS = 600_000;

// A real Chromium on the queues view, over the HTTP API on a runtime whose Redis holds what the fleet's limiter wrote.
describe.skipIf(chromiumMissing() !== undefined)("the dashboard's queues view", { timeout: 120_000 }, () => {
  let runtime: TestRuntime;
  let server: Server;
  let base: string;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    runtime = await createTestRuntime({
      providers: { claude: { kind: "anthropic", apiKeyEnv: "CLAUDE_KEY", limits: budget } },
      roles: { worker: scope },
    });
    const limiter = new RedisRateLimiter(runtime.redis, runtime.keys);
    const demand = { inputTokens: 1_000, outputTokens: 500 };
    await limiter.reserve(scope, { id: "call_1", demand, budget, leaseMs: 60_000, waitedMs: 0 });
    await limiter.reserve(scope, { id: "call_2", demand, budget, leaseMs: 60_000, waitedMs: 2_500 });
    await limiter.observe(scope, { requests: { limit: 50, remaining: 45 } }, budget);
    // Longer than the test can take, so the pause a 429 set is still running when the page reads it.
    await limiter.pause(scope, PAUSE_MS);
    const options = {
      runtime,
      approvals: new ApprovalStore(runtime.redis, runtime.keys, { ttlSeconds: 60 }),
      approvalSigner: new ApprovalSigner(generateKeyPair().privateKey),
      knownTools: [],
      token,
    };
    [{ server, base }, browser] = await Promise.all([listenApi(options), launchChromium()]);
  });
  afterAll(async () => {
    await browser?.close();
    if (server) await closeNow(server);
    await runtime?.cleanup();
  });

  it("shows each limited model's budget, use, waits and 429s", async () => {
    page = await (await browser.newContext()).newPage();
    await page.goto(`${base}/#token=${token}`);
    await page.locator('[data-testid="nav-queues"]').click();
    const row = page.locator(`[data-testid="rate-limit-row"][data-scope="claude/claude-sonnet-5-5"]`);
    await row.waitFor({ timeout: 20_000 });
    const cell = async (id: string) => (await row.locator(`[data-testid="${id}"]`).textContent())?.trim();
    expect(await cell("rate-limit-requests")).toMatch(/^\d+ of 50\/min \(configured 60, learned 50\)$/);
    // Use refills at 500 tokens a second, so by now it may be back to 0 (the numbers are the API test's).
    expect(await cell("rate-limit-input-tokens")).toMatch(/^[\d,]+ of 30,000\/min \(configured\)$/);
    expect(await cell("rate-limit-output-tokens")).toBe("not limited");
    expect(await cell("rate-limit-in-flight")).toBe("2 of 4");
    expect(await cell("rate-limit-waits")).toBe("1 (2.5 s)");
    const limited = (await cell("rate-limit-429s"))?.match(/^1 \(paused (\d+\.\d) s\)$/);
    expect(limited, "one 429, with the pause it set still running").not.toBeNull();
    expect(Number(limited?.[1]) * 1000).toBeLessThanOrEqual(PAUSE_MS);
  });

  it("keeps one refresh going when Queues is clicked twice while its first answer is on the wire", async () => {
    page = await (await browser.newContext()).newPage();
    // The page's timers run on a clock the test advances, so refreshes are counted, not timed.
    await page.clock.install();
    const asked: string[] = [];
    page.on("request", (request) => asked.push(new URL(request.url()).pathname));
    await page.goto(`${base}/#token=${token}`);
    await page.locator('[data-testid="nav-queues"]').dblclick();
    await page.locator('[data-testid="queue-table"]').waitFor({ timeout: 20_000 });
    await expect.poll(() => asked.filter((path) => path === "/queues").length).toBe(2);
    await page.clock.runFor(15_000);
    // A request the page makes after the advance: once it is seen, every refresh the advance fired was seen before it.
    await page.evaluate(`fetch("/health")`);
    await expect.poll(() => asked.includes("/health")).toBe(true);
    expect(asked.filter((path) => path === "/queues")).toHaveLength(2 + 3);
  });
});
