import { mkdir } from "node:fs/promises";
import { resolve } from "node:path";
import { LiveDeployment } from "../support/live-deployment.ts";
import { launchChromium } from "../support/system-chromium.ts";

/**
 * `npm run screenshots`: writes docs/screenshots/*.png, each dashboard view
 * of a live deployment with one finished sre-triage run and one waiting for
 * its approval, as the README shows them. Run by hand when the pages change,
 * not in CI.
 */
const OUT = resolve(import.meta.dirname, "../../../../docs/screenshots");
const TERMINAL = ["done", "failed", "cancelled", "escalated"];

const deployment = await LiveDeployment.start({ workers: [["plan", "evaluate"], ["step"]] });
const browser = await launchChromium();
try {
  await mkdir(OUT, { recursive: true });
  const finished = await deployment.submitSreTriage();
  await deployment.waitFor(finished, (state) => state.status === "waiting_approval");
  const { approvals } = await deployment.api<{ approvals: { approvalId: string; runId: string }[] }>("/approvals");
  const approvalId = approvals.find((pending) => pending.runId === finished)?.approvalId;
  await deployment.api(`/approvals/${approvalId}/approve`, { method: "POST", body: JSON.stringify({ note: "restart approved" }) });
  await deployment.waitFor(finished, (state) => TERMINAL.includes(state.status));
  const waiting = await deployment.submitSreTriage();
  await deployment.waitFor(waiting, (state) => state.status === "waiting_approval");

  const page = await (await browser.newContext({ viewport: { width: 1400, height: 900 } })).newPage();
  await page.goto(deployment.dashboardUrl);
  await page.locator(`[data-testid="run-row"][data-run-id="${finished}"]`).waitFor();
  await page.screenshot({ path: resolve(OUT, "runs.png") });

  await page.locator(`[data-testid="run-row"][data-run-id="${finished}"]`).click();
  const call = page.locator('[data-testid="call"]', { hasText: "search_logs" }).first();
  await call.waitFor();
  await call.locator("summary").click();
  await page.screenshot({ path: resolve(OUT, "run.png"), fullPage: true });

  await page.locator('[data-testid="nav-approvals"]').click();
  await page.locator('[data-testid="approval-card"]').first().waitFor();
  await page.screenshot({ path: resolve(OUT, "approvals.png") });

  await page.locator('[data-testid="nav-queues"]').click();
  await page.getByText("step", { exact: false }).first().waitFor();
  await page.screenshot({ path: resolve(OUT, "queues.png") });
  await deployment.api(`/runs/${waiting}/cancel`, { method: "POST", body: JSON.stringify({ reason: "screenshots taken" }) });
  process.stdout.write(`screenshots written to ${OUT}\n`);
} finally {
  await browser.close();
  await deployment.stop();
}
