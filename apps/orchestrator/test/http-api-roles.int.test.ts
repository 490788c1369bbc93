import { beforeAll, describe, expect, it } from "vitest";
import type { RunState } from "@rein/contracts/run";
import { type ApiToken, sha256Of } from "../src/api/api-tokens.ts";
import type { RunSummary } from "../src/api/run-summaries.ts";
import type { QueuedApproval } from "../src/approvals/approval-queue.ts";
import { loadExample } from "../src/examples/load-example.ts";
import { apiOverHarnessPerFile } from "./support/api-server.ts";
import { type FakeNode, findNode, visitDashboard } from "./support/dashboard-browser.ts";
import { startExampleHarness } from "./support/harness.ts";
import { type SseFrame, sseReader } from "./support/sse-reader.ts";
import { baseState } from "@rein/controller/testing";

/**
 * Issue 28: "any API token reads and decides every run". Tokens now carry a
 * role (viewer < operator < admin) and may be limited to the runs whose goal
 * metadata they name. Each case drives the real API over a harness running
 * every role.
 */
const adminToken = "roles-admin-token-0123456789";
const secrets = {
  vera: "roles-vera-viewer-0123456789",
  otto: "roles-otto-operator-0123456789",
  pat: "roles-pat-payments-operator-0123456789",
  sam: "roles-sam-payments-admin-0123456789",
};
const payments = { metadata: { team: "payments" } };
const tokens: ApiToken[] = [
  { identity: "vera", role: "viewer", sha256: sha256Of(secrets.vera) },
  { identity: "otto", role: "operator", sha256: sha256Of(secrets.otto) },
  { identity: "pat", role: "operator", runs: payments, sha256: sha256Of(secrets.pat) },
  { identity: "sam", role: "admin", runs: payments, sha256: sha256Of(secrets.sam) },
];

describe("API tokens with roles and run scopes", () => {
  const api = apiOverHarnessPerFile(() => startExampleHarness("sre-triage"), { token: adminToken, tokens, feedIntervalMs: 50 });
  const request = (path: string, bearer: string, init: RequestInit = {}) =>
    fetch(`${api.base}${path}`, { ...init, headers: { "content-type": "application/json", authorization: `Bearer ${bearer}` } });
  const json = async <T>(path: string, bearer: string, init: RequestInit = {}) => {
    const response = await request(path, bearer, init);
    return { status: response.status, body: (await response.json()) as T };
  };
  const post = (path: string, bearer: string, body: unknown = {}) =>
    json<{ error?: string; approver?: string }>(path, bearer, { method: "POST", body: JSON.stringify(body) });

  /** An sre-triage run submitted by the admin with this goal metadata, once it waits for the restart's approval. */
  async function waitingRun(metadata: Record<string, string>): Promise<{ runId: string; approvalId: string }> {
    const example = await loadExample("sre-triage");
    const submitted = await json<{ runId: string }>("/runs", adminToken, {
      method: "POST",
      body: JSON.stringify({ ...example.goal, metadata }),
    });
    expect(submitted.status).toBe(202);
    const state = await api.harness.waitFor(submitted.body.runId, (candidate) => candidate.status === "waiting_approval");
    return { runId: submitted.body.runId, approvalId: state.pendingApprovals[0] as string };
  }

  /** A run stored directly (no role runs it), for what lists and reads show. */
  async function storedRun(runId: string, metadata: Record<string, string>, status: RunState["status"] = "done"): Promise<void> {
    const now = new Date().toISOString();
    const state = baseState({ runId, status, createdAt: now, updatedAt: now, version: 0 });
    await api.harness.runtime.runs.create({ ...state, goal: { ...state.goal, text: `run of ${metadata.team}`, metadata } });
  }

  it("says who each token is and what role it has", async () => {
    expect((await json("/identity", secrets.vera)).body).toEqual({ identity: "vera", role: "viewer" });
    expect((await json("/identity", secrets.pat)).body).toEqual({ identity: "pat", role: "operator", runs: payments });
    expect((await json("/identity", adminToken)).body).toEqual({ identity: "operator", role: "admin" });
  });

  it("lets a viewer read a waiting run, its trace and the approvals queue, but not decide, reply, cancel or submit", async () => {
    const { runId, approvalId } = await waitingRun({ team: "search" });
    expect((await request(`/runs/${runId}`, secrets.vera)).status).toBe(200);
    expect((await request(`/runs/${runId}/view`, secrets.vera)).status).toBe(200);
    expect((await request("/queues", secrets.vera)).status).toBe(200);
    const queue = await json<{ approvals: QueuedApproval[] }>("/approvals", secrets.vera);
    expect(queue.body.approvals.map((approval) => approval.approvalId)).toContain(approvalId);

    const approve = await post(`/approvals/${approvalId}/approve`, secrets.vera, { note: "looks fine" });
    expect(approve).toEqual({
      status: 403,
      body: { error: `the token of vera has role viewer; POST /approvals/{id}/approve needs role operator or above` },
    });
    expect((await post(`/approvals/${approvalId}/deny`, secrets.vera, { reason: "no" })).status).toBe(403);
    expect((await api.harness.tooling.approvals.get(approvalId))?.status).toBe("pending");
    expect((await post(`/runs/${runId}/reply`, secrets.vera, { instruction: "go on" })).body.error).toMatch(
      /role viewer; POST \/runs\/\{id\}\/reply needs role operator/,
    );
    expect((await post(`/runs/${runId}/cancel`, secrets.vera)).body.error).toMatch(
      /role viewer; POST \/runs\/\{id\}\/cancel needs role admin/,
    );
    expect((await post("/runs", secrets.vera, { text: "anything" })).status).toBe(403);

    // An operator decides (recorded under its name) but may not cancel or submit.
    expect((await post(`/runs/${runId}/cancel`, secrets.otto)).body.error).toMatch(
      /role operator; POST \/runs\/\{id\}\/cancel needs role admin/,
    );
    expect((await post("/runs", secrets.otto, { text: "anything" })).status).toBe(403);
    expect(await post(`/approvals/${approvalId}/approve`, secrets.otto, { note: "checked the load" })).toMatchObject({
      status: 200,
      body: { approver: "http:otto" },
    });
    expect((await api.harness.waitFor(runId)).status).toBe("done");
  });

  it("shows a token limited to some runs only those: another run answers 404 exactly as a missing one, and is in no list", async () => {
    await storedRun("run_roles_payments", { team: "payments" });
    await storedRun("run_roles_search", { team: "search" });
    const { runId: searchWaiting, approvalId: searchApproval } = await waitingRun({ team: "search" });

    expect((await request("/runs/run_roles_payments", secrets.pat)).status).toBe(200);
    const hidden = await json<{ error: string }>("/runs/run_roles_search", secrets.pat);
    const missing = await json<{ error: string }>("/runs/run_roles_nowhere", secrets.pat);
    expect(hidden.status).toBe(404);
    expect(hidden.body.error.replace("run_roles_search", "ID")).toBe(missing.body.error.replace("run_roles_nowhere", "ID"));
    for (const path of ["/view", "/events", "/calls/c1", "/artifacts/art_1"])
      expect((await request(`/runs/run_roles_search${path}`, secrets.pat)).status).toBe(404);

    const listed = await json<{ runs: RunSummary[] }>("/runs?limit=200", secrets.pat);
    expect(listed.body.runs.map((run) => run.id)).toContain("run_roles_payments");
    expect(listed.body.runs.map((run) => run.id)).not.toContain("run_roles_search");
    expect(listed.body.runs.map((run) => run.id)).not.toContain(searchWaiting);
    const queue = await json<{ approvals: QueuedApproval[] }>("/approvals", secrets.pat);
    expect(queue.body.approvals.map((approval) => approval.runId)).not.toContain(searchWaiting);

    // Deciding or answering a run it cannot see is as deciding one that does not exist; the approval stays pending.
    const decided = await post(`/approvals/${searchApproval}/approve`, secrets.pat, {});
    const nowhere = await post("/approvals/apr_roles_nowhere/approve", secrets.pat, {});
    expect(decided.status).toBe(404);
    expect(decided.body.error?.replace(searchApproval, "ID")).toBe(nowhere.body.error?.replace("apr_roles_nowhere", "ID"));
    expect((await api.harness.tooling.approvals.get(searchApproval))?.status).toBe("pending");
    expect((await post(`/runs/${searchWaiting}/reply`, secrets.pat, { instruction: "go on" })).status).toBe(404);
    // Metrics count every run.
    expect((await request("/metrics", secrets.pat)).status).toBe(403);

    // The admin, unlimited, sees both; an admin limited to payments submits into payments whatever the goal says.
    expect((await request("/runs/run_roles_search", adminToken)).status).toBe(200);
    const example = await loadExample("sre-triage");
    const submitted = await json<{ runId: string }>("/runs", secrets.sam, {
      method: "POST",
      body: JSON.stringify({ ...example.goal, metadata: { team: "search", owner: "sam" } }),
    });
    expect(submitted.status).toBe(202);
    expect((await api.harness.runtime.runs.require(submitted.body.runId)).goal.metadata).toEqual({ team: "payments", owner: "sam" });
    await post(`/runs/${submitted.body.runId}/cancel`, secrets.sam);
    await post(`/runs/${searchWaiting}/cancel`, adminToken);
  });

  it("streams a limited token the changes of its own runs only, and no deployment-wide counts", async () => {
    const everyone = sseReader(await request("/runs/events", adminToken));
    const limited = sseReader(await request("/runs/events", secrets.pat));
    const seenByLimited: SseFrame[] = [];
    const watch = (frame: SseFrame) => seenByLimited.push(frame);
    try {
      await everyone.until((frame) => frame.event === "ready");
      // A limited stream starts with "ready": the counts it would have been sent first are every run's.
      expect((await limited.until(() => true)).event).toBe("ready");
      const isRun = (runId: string) => (frame: SseFrame) => frame.event === "run" && (frame.data as RunSummary).id === runId;
      await storedRun("run_feed_search", { team: "search" }, "executing");
      await everyone.until(isRun("run_feed_search"));
      // Whatever the feed wrote to the limited stream about the search run, it wrote before this next run's frame.
      await storedRun("run_feed_payments", { team: "payments" }, "executing");
      await limited.until((frame) => watch(frame) > 0 && isRun("run_feed_payments")(frame));
      expect(seenByLimited.some(isRun("run_feed_payments"))).toBe(true);
      expect(seenByLimited.some(isRun("run_feed_search"))).toBe(false);
      expect(seenByLimited.some((frame) => frame.event === "counts")).toBe(false);
    } finally {
      await everyone.close();
      await limited.close();
    }
  });

  describe("the dashboard", () => {
    let html: string;
    beforeAll(async () => {
      html = await (await fetch(`${api.base}/`)).text();
    });
    const byTestId = (root: FakeNode, id: string) => findNode(root, (node) => node.dataset.testid === id);
    const open = (token: string, hash: string) =>
      visitDashboard(html, api.base, hash, visitDashboard(html, api.base, `#token=${token}`).session);

    it("offers each role only what it may do: a viewer sees the approval with no buttons, an operator decides, only an admin cancels", async () => {
      const { runId } = await waitingRun({ team: "search" });
      const card = (page: ReturnType<typeof open>) => byTestId(page.element("detail"), "approval-card");

      const asViewer = open(secrets.vera, "#approvals");
      await asViewer.until(() => card(asViewer) !== undefined);
      expect(asViewer.element("identity").textContent).toBe("as vera (viewer)");
      expect(byTestId(card(asViewer) as FakeNode, "approval-approve")).toBeUndefined();
      expect(byTestId(card(asViewer) as FakeNode, "approval-read-only")?.textContent).toMatch(/may not decide approvals/);

      const asOperator = open(secrets.otto, "#approvals");
      await asOperator.until(() => card(asOperator) !== undefined);
      expect(byTestId(card(asOperator) as FakeNode, "approval-approve")).toBeDefined();

      const runPage = (token: string) => open(token, `#${runId}`);
      const cancelButton = (page: ReturnType<typeof open>) => findNode(page.element("detail"), (node) => node.textContent === "Cancel run");
      const operatorRun = runPage(secrets.otto);
      await operatorRun.until(() => byTestId(operatorRun.element("detail"), "run-status") !== undefined);
      expect(cancelButton(operatorRun)).toBeUndefined();
      const adminRun = runPage(adminToken);
      await adminRun.until(() => byTestId(adminRun.element("detail"), "run-status") !== undefined);
      expect(cancelButton(adminRun)).toBeDefined();
      await post(`/runs/${runId}/cancel`, adminToken);
    });

    it("gives a viewer no reply form for an escalated run", async () => {
      await storedRun("run_roles_escalated", { team: "search" }, "escalated");
      const asViewer = open(secrets.vera, "#escalations");
      await asViewer.until(() => byTestId(asViewer.element("detail"), "escalation-card") !== undefined);
      expect(byTestId(asViewer.element("detail"), "escalation-reply-send")).toBeUndefined();
      const asOperator = open(secrets.otto, "#escalations");
      await asOperator.until(() => byTestId(asOperator.element("detail"), "escalation-card") !== undefined);
      expect(byTestId(asOperator.element("detail"), "escalation-reply-send")).toBeDefined();
      expect(byTestId(asOperator.element("detail"), "escalation-cancel")).toBeUndefined();
    });
  });
});
