import { resolve } from "node:path";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { RunStatus } from "@rein/contracts/run";
import { LiveDeployment } from "../support/live-deployment.ts";
import { chromiumMissing, launchChromium } from "../support/system-chromium.ts";
import { baseState } from "@rein/controller/testing";
import { ApprovalStore } from "@rein/runtime";

/** How long the page may take to show what the server already has (the list refreshes every few seconds). */
const SHOWN_WITHIN_MS = 20_000;

// A real Chromium drives the dashboard that a live `rein serve --http` serves, with its worker processes.
describe.skipIf(chromiumMissing() !== undefined)("the dashboard in a browser, against a live deployment", { timeout: 180_000 }, () => {
  let deployment: LiveDeployment;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    // The step worker also carries a module of the user's tools, as `rein worker --tools` would load it.
    const toolModules = [resolve(import.meta.dirname, "../../../../examples/research-fanout/tools.ts")];
    [deployment, browser] = await Promise.all([
      LiveDeployment.start({ workers: [["plan", "evaluate"], ["step"]], config: { toolModules } }),
      launchChromium(),
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    await deployment?.stop();
  });
  afterEach(async () => {
    await page?.context().close();
  });

  /** A fresh tab (its own sessionStorage) on `url`. */
  const open = async (url: string) => {
    page = await (await browser.newContext()).newPage();
    await page.goto(url);
    return page;
  };
  const runRow = (runId: string) => page.locator(`[data-testid="run-row"][data-run-id="${runId}"]`);
  /** Opens the run list and, once `dropped` is shown, narrows it with `narrow`; returns once `dropped` has left it and `kept` is shown. */
  const narrowList = async (runs: { kept: string; dropped: string }, narrow: () => Promise<void>) => {
    await open(deployment.dashboardUrl);
    await runRow(runs.dropped).waitFor({ timeout: SHOWN_WITHIN_MS });
    await narrow();
    await runRow(runs.dropped).waitFor({ state: "detached", timeout: SHOWN_WITHIN_MS });
    await runRow(runs.kept).waitFor({ timeout: SHOWN_WITHIN_MS });
  };
  /** A stored run that no worker touches. */
  const fixtureRun = async (runId: string, status: RunStatus, text: string, budget: { maxCostUsd?: number } = {}) => {
    const createdAt = new Date().toISOString();
    const state = baseState({ runId, status, createdAt, updatedAt: createdAt, version: 0 });
    await deployment.runtime.runs.create({ ...state, goal: { ...state.goal, text, budget: { ...state.goal.budget, ...budget } } });
  };

  let finishedRunId: string | undefined;
  /** A done sre-triage run: the one approved from the page, or one approved over the API when that test did not run. */
  const finishedRun = async () => {
    if (finishedRunId) return finishedRunId;
    const runId = await deployment.submitSreTriage();
    await deployment.waitFor(runId, (state) => state.status === "waiting_approval");
    const { approvals } = await deployment.api<{ approvals: { approvalId: string; runId: string }[] }>("/approvals");
    await deployment.api(`/approvals/${approvals.find((pending) => pending.runId === runId)?.approvalId}/approve`, {
      method: "POST",
      body: JSON.stringify({}),
    });
    expect((await deployment.waitFor(runId, (state) => ["done", "failed", "cancelled", "escalated"].includes(state.status))).status).toBe(
      "done",
    );
    finishedRunId = runId;
    return runId;
  };

  it("says the token is missing, rather than offering a choice among nothing", async () => {
    await open(`${deployment.base}/`);
    await page.getByText("No API token").waitFor({ timeout: SHOWN_WITHIN_MS });
    expect(await page.getByText("Choose a run.").count()).toBe(0);
  });

  it("says the API refused a wrong token", async () => {
    await open(`${deployment.base}/#token=not-the-token-of-this-server`);
    await page.getByText("The API refused this token").waitFor({ timeout: SHOWN_WITHIN_MS });
    expect(await page.getByText("Choose a run.").count()).toBe(0);
  });

  it("shows a run submitted elsewhere in the list without a reload", async () => {
    await open(deployment.dashboardUrl);
    await page.locator("#status-filter").waitFor({ timeout: SHOWN_WITHIN_MS });
    // A reload would start a fresh window object and lose this mark.
    await page.evaluate(() => Object.assign(globalThis, { notReloaded: true }));
    const runId = await deployment.submitSreTriage();
    await runRow(runId).waitFor({ timeout: SHOWN_WITHIN_MS });
    expect(await page.evaluate(() => (globalThis as { notReloaded?: boolean }).notReloaded)).toBe(true);
    expect(await runRow(runId).textContent()).toContain("payment-api");
    await deployment.api(`/runs/${runId}/cancel`, { method: "POST", body: JSON.stringify({ reason: "the test is over" }) });
  });

  it("runs its own script and no other: an inline script put into the page does not run", async () => {
    await open(deployment.dashboardUrl);
    // The page's script ran under the Content-Security-Policy: it drew the run list's filter.
    await page.locator("#status-filter").waitFor({ timeout: SHOWN_WITHIN_MS });
    // As text: it runs in the page, whose DOM this Node-typed file does not declare.
    const injectedRan = await page.evaluate(`(() => {
      const script = document.createElement("script");
      script.textContent = "globalThis.injectedRan = true";
      document.body.append(script);
      return globalThis.injectedRan === true;
    })()`);
    expect(injectedRan).toBe(false);
  });

  it("marks only the chosen run's row, not another whose goal names that run", async () => {
    await fixtureRun("run_e2e_chosen", "done", "The run a person chooses");
    await fixtureRun("run_e2e_mentions", "done", "Follow up on run_e2e_chosen");
    await open(deployment.dashboardUrl);
    await runRow("run_e2e_mentions").waitFor({ timeout: SHOWN_WITHIN_MS });
    await runRow("run_e2e_chosen").click({ timeout: SHOWN_WITHIN_MS });
    await page.locator('#detail [data-testid="run-goal"]', { hasText: "The run a person chooses" }).waitFor({ timeout: SHOWN_WITHIN_MS });
    expect(await runRow("run_e2e_chosen").getAttribute("class")).toContain("selected");
    expect(await runRow("run_e2e_mentions").getAttribute("class")).not.toContain("selected");
  });

  it("narrows the list to one status with the status filter", async () => {
    await fixtureRun("run_e2e_failed", "failed", "A failed run for the filter");
    await fixtureRun("run_e2e_cancelled", "cancelled", "A cancelled run for the filter");
    await narrowList({ kept: "run_e2e_failed", dropped: "run_e2e_cancelled" }, async () => {
      await page.locator("#status-filter").selectOption("failed");
    });
    const statuses = await page
      .locator('[data-testid="run-row"]')
      .evaluateAll((rows) => rows.map((row) => (row as unknown as { dataset: { status: string } }).dataset.status));
    expect(statuses.length).toBeGreaterThan(0);
    expect(new Set(statuses)).toEqual(new Set(["failed"]));
  });

  it("narrows the list to the runs whose goal matches the search text", async () => {
    await fixtureRun("run_e2e_zebra", "done", "Rotate the zebra certificates");
    await fixtureRun("run_e2e_plain", "done", "Tidy the logs");
    await narrowList({ kept: "run_e2e_zebra", dropped: "run_e2e_plain" }, () => page.locator('[data-testid="run-search"]').fill("ZEBRA"));
    const goals = await page.locator('[data-testid="run-row"] [data-testid="run-goal"]').allTextContents();
    expect(goals).toEqual(["Rotate the zebra certificates"]);
  });

  it("approves an sre-triage restart from the page, and the run ends done", async () => {
    const runId = await deployment.submitSreTriage();
    await deployment.waitFor(runId, (state) => state.status === "waiting_approval");
    await open(deployment.dashboardUrl);
    await runRow(runId).click({ timeout: SHOWN_WITHIN_MS });
    const approval = page.locator('[data-testid="approval-card"]', { hasText: "restart_service" });
    await approval.waitFor({ timeout: SHOWN_WITHIN_MS });
    await approval.locator('[data-testid="approval-note"]').fill("restart approved by the browser test");
    await approval.locator('[data-testid="approval-approve"]').click();
    const done = await deployment.waitFor(runId, (state) => ["done", "failed", "cancelled", "escalated"].includes(state.status));
    expect(done.status, deployment.outputs()).toBe("done");
    // The page follows the run's events live: the end arrives without a click.
    await page.getByText(/run done/).waitFor({ timeout: SHOWN_WITHIN_MS });
    const decided = (await deployment.runtime.trace.read(runId)).find((event) => event.kind === "approval.decided");
    // The approver is the token's identity, not a name typed into the page.
    expect(decided?.payload).toMatchObject({
      decision: "approved",
      approver: expect.stringMatching(/^http:/),
      note: "restart approved by the browser test",
    });
    finishedRunId = runId;
  });

  it("opens a step's tool call to its input and its output", async () => {
    const runId = await finishedRun();
    await open(`${deployment.dashboardUrl}`);
    await runRow(runId).click({ timeout: SHOWN_WITHIN_MS });
    const call = page.locator('[data-testid="call"]', { hasText: "search_logs" }).first();
    await call.waitFor({ timeout: SHOWN_WITHIN_MS });
    const output = call.locator('[data-testid="call-output"]');
    expect(await output.isVisible()).toBe(false);
    await call.locator("summary").click();
    await output.waitFor({ state: "visible", timeout: SHOWN_WITHIN_MS });
    // The same output the API gives for that call, which is what the tool returned.
    const view = await deployment.api<{ calls: { tool: string; output: string | null; input: unknown }[] }>(`/runs/${runId}/view`);
    const recorded = view.calls.find((candidate) => candidate.tool === "search_logs");
    expect(recorded?.output).toEqual(expect.any(String));
    expect((await output.textContent())?.trim()).toBe(recorded?.output?.trim());
    expect(await call.locator('[data-testid="call-input"]').textContent()).toContain("payment-api");
    expect(await call.getAttribute("data-status")).toBe("ok");
  });

  it("leaves the examples' work counted in /metrics: runs, steps, tool calls and tokens", async () => {
    await finishedRun();
    const response = await fetch(`${deployment.base}/metrics`, { headers: { authorization: `Bearer ${deployment.token}` } });
    expect(response.status).toBe(200);
    const text = await response.text();
    /** The sum of every sample of `metric` (all its label sets). */
    const total = (metric: string) =>
      text
        .split("\n")
        .filter((row) => row.startsWith(`${metric} `) || row.startsWith(`${metric}{`))
        .reduce((sum, row) => sum + Number(row.slice(row.lastIndexOf(" ") + 1)), 0);
    expect(total("rein_runs_submitted_total")).toBeGreaterThan(0);
    expect(total("rein_steps_dispatched_total")).toBeGreaterThan(0);
    expect(total("rein_tool_calls_total")).toBeGreaterThan(0);
    expect(total("rein_model_tokens_total")).toBeGreaterThan(0);
  });

  it("answers an escalated run from the page, and the run resumes with the instruction", async () => {
    await fixtureRun("run_e2e_escalated", "escalated", "Needs a person's answer");
    await open(deployment.dashboardUrl);
    await runRow("run_e2e_escalated").click({ timeout: SHOWN_WITHIN_MS });
    await page.getByPlaceholder("instruction for the run").fill("check the pool size first");
    await page.getByRole("button", { name: "Reply" }).click();
    const resumed = await deployment.waitFor("run_e2e_escalated", (state) => state.status !== "escalated");
    expect(resumed.instruction).toBe("check the pool size first");
    await deployment.api("/runs/run_e2e_escalated/cancel", { method: "POST", body: JSON.stringify({ reason: "the test is over" }) });
  });

  /**
   * Types `text` into `field` in two halves, with the run's header redrawn between them: a header event
   * joins the run's trace, as one does while a person is typing.
   */
  const typeAcrossRedraw = async (runId: string, field: Locator, text: string) => {
    const half = Math.floor(text.length / 2);
    await field.click({ timeout: SHOWN_WITHIN_MS });
    await page.keyboard.type(text.slice(0, half));
    const goal = page.locator('#run-header [data-testid="run-goal"]');
    await goal.evaluate((node) => node.setAttribute("data-drawn-before", ""));
    const state = await deployment.runtime.runs.require(runId);
    await deployment.runtime.trace.append({
      runId,
      kind: "run.status_changed",
      payload: { from: "executing", to: state.status, event: "test.redraw" },
    });
    await page.locator('#run-header [data-testid="run-goal"]:not([data-drawn-before])').waitFor({ timeout: SHOWN_WITHIN_MS });
    await page.keyboard.type(text.slice(half));
  };

  it("keeps an approval note being typed when the run's events redraw the page", async () => {
    await fixtureRun("run_e2e_typing_note", "waiting_approval", "A restart waits while a person writes a note");
    const approvals = new ApprovalStore(deployment.runtime.redis, deployment.runtime.keys, { ttlSeconds: 600 });
    const action = { tool: "restart_service", args: { service: "api" }, scope: { services: ["api"] } };
    await approvals.create("run_e2e_typing_note", "s1", action, "1:call_1");
    await open(deployment.dashboardUrl);
    await runRow("run_e2e_typing_note").click({ timeout: SHOWN_WITHIN_MS });
    const note = page.locator('[data-testid="approval-note"]');
    await typeAcrossRedraw("run_e2e_typing_note", note, "the pool drained, restart is safe");
    expect(await note.inputValue()).toBe("the pool drained, restart is safe");
    await approvals.removeRun("run_e2e_typing_note");
  });

  it("keeps an escalation reply being typed when the run's events redraw the page", async () => {
    await fixtureRun("run_e2e_typing_reply", "escalated", "An escalation a person answers at length");
    await open(deployment.dashboardUrl);
    await runRow("run_e2e_typing_reply").click({ timeout: SHOWN_WITHIN_MS });
    await typeAcrossRedraw(
      "run_e2e_typing_reply",
      page.getByPlaceholder("instruction for the run"),
      "raise the pool size to 40, then retry",
    );
    await page.getByRole("button", { name: "Reply" }).click();
    const resumed = await deployment.waitFor("run_e2e_typing_reply", (state) => state.status !== "escalated");
    expect(resumed.instruction).toBe("raise the pool size to 40, then retry");
    await deployment.api("/runs/run_e2e_typing_reply/cancel", { method: "POST", body: JSON.stringify({ reason: "the test is over" }) });
  });

  it("lists in the queues view the tools each step worker carries from the user's modules", async () => {
    await open(`${deployment.dashboardUrl}`);
    await page.locator('[data-testid="nav-queues"]').click();
    const workerRow = (roles: string) =>
      page.locator('[data-testid="worker-row"]', {
        has: page.locator('[data-testid="worker-roles"]', { hasText: new RegExp(`^${roles}$`) }),
      });
    await workerRow("step").waitFor({ timeout: SHOWN_WITHIN_MS });
    expect(await workerRow("step").locator('[data-testid="worker-tools"]').textContent()).toBe(
      "read_eu_report, read_us_report, read_ap_report",
    );
    expect(await workerRow("plan, evaluate").locator('[data-testid="worker-tools"]').textContent()).toBe("—");
  });

  it("says a run that does not exist was not found, rather than leaving the pane blank", async () => {
    await open(deployment.dashboardUrl);
    await page.locator("#status-filter").waitFor({ timeout: SHOWN_WITHIN_MS });
    // A link to a run kept no longer: the tab already holds the token, the address names the run.
    await page.goto(`${deployment.base}/#run_e2e_gone`);
    await page.reload();
    const said = page.locator('[data-testid="run-problem"]');
    await said.waitFor({ timeout: SHOWN_WITHIN_MS });
    expect(await said.textContent()).toMatch(/run_e2e_gone/);
  });

  it("shows a cost budget of $0 as $0.0000, not as an unknown limit", async () => {
    await fixtureRun("run_e2e_free", "done", "A run allowed no spend", { maxCostUsd: 0 });
    await open(deployment.dashboardUrl);
    await runRow("run_e2e_free").click({ timeout: SHOWN_WITHIN_MS });
    const cost = page.locator('[data-testid="budget-cost"]');
    await cost.waitFor({ timeout: SHOWN_WITHIN_MS });
    expect(await cost.textContent()).toContain("of $0.0000");
  });

  it("says why a cancel was refused instead of doing nothing", async () => {
    await fixtureRun("run_e2e_vanishing", "executing", "A run removed while it is on screen");
    await open(deployment.dashboardUrl);
    await runRow("run_e2e_vanishing").click({ timeout: SHOWN_WITHIN_MS });
    const cancel = page.getByRole("button", { name: "Cancel run" });
    await cancel.waitFor({ timeout: SHOWN_WITHIN_MS });
    await deployment.runtime.runs.remove("run_e2e_vanishing");
    await cancel.click();
    const said = page.locator('[data-testid="cancel-problem"]');
    await said.waitFor({ timeout: SHOWN_WITHIN_MS });
    expect(await said.textContent()).toMatch(/cancel refused/i);
  });
});
