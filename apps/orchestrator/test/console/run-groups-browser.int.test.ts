import type { Server } from "node:http";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApprovalStore } from "@rein/runtime";
import { ApprovalSigner, generateKeyPair } from "@rein/signing";
import { closeNow, listenApi } from "../support/api-server.ts";
import { chromiumMissing, launchChromium } from "../support/system-chromium.ts";
import { exampleRecordedOnce } from "../trace/record-example.ts";

const token = "run-groups-token-0123456789abcdef";

// A real Chromium on the run page of examples/research-fanout as recorded: three look-ups that ran side by side.
describe.skipIf(chromiumMissing() !== undefined)("the dashboard's run page for a run that fanned out", { timeout: 180_000 }, () => {
  const recorded = exampleRecordedOnce("research-fanout");
  let server: Server;
  let base: string;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    const { runtime } = recorded;
    const options = {
      runtime,
      approvals: new ApprovalStore(runtime.redis, runtime.keys, { ttlSeconds: 60 }),
      approvalSigner: new ApprovalSigner(generateKeyPair().privateKey),
      knownTools: [],
      token,
    };
    [{ server, base }, browser] = await Promise.all([listenApi(options), launchChromium()]);
    page = await (await browser.newContext()).newPage();
    await page.goto(`${base}/#token=${token}`);
    await page.locator(`[data-testid="run-row"][data-run-id="${recorded.bundle.runId}"]`).click({ timeout: 30_000 });
    await page.locator('[data-testid="run-waterfall"]').waitFor({ timeout: 30_000 });
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    if (server) await closeNow(server);
  });

  it("shows the group's three steps side by side in one box, under its join rule and outcome", async () => {
    const group = page.locator('[data-testid="group-g1"]');
    expect(await group.locator(".muted").first().textContent()).toBe("group g1, join all: joined");
    expect(
      await group
        .locator('[data-testid^="step-"]')
        .evaluateAll((nodes) => nodes.map((node) => (node as unknown as { dataset: { testid: string } }).dataset.testid)),
    ).toEqual(["step-s1", "step-s2", "step-s3"]);
  });

  it("draws the three steps as overlapping bars on the waterfall's one time axis, with their model and tool calls", async () => {
    const bars = page.locator('[data-testid="waterfall-step"] .wf-bar');
    const spans = await bars.evaluateAll((nodes) =>
      nodes.map((node) => {
        // The test's tsconfig has no DOM types: the element as far as this reads it.
        const { style } = node as unknown as { style: { left: string; width: string } };
        return { left: Number.parseFloat(style.left), right: Number.parseFloat(style.left) + Number.parseFloat(style.width) };
      }),
    );
    expect(spans).toHaveLength(3);
    // They ran at the same time: each one starts before any other ends.
    for (const one of spans) for (const other of spans) expect(one.left).toBeLessThan(other.right);
    expect(await page.locator('[data-testid="waterfall-tool"]').count()).toBe(3);
    expect(await page.locator('[data-testid="waterfall-model"]').count()).toBeGreaterThanOrEqual(6);
  });
});
