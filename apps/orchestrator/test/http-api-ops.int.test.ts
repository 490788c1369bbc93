import { beforeAll, describe, expect, it } from "vitest";
import type { RunStatus } from "@rein/contracts/run";
import type { QueueOverview } from "../src/api/queue-overview.ts";
import type { RunSummary, StatusCounts } from "../src/api/run-summaries.ts";
import type { QueuedApproval } from "../src/approvals/approval-queue.ts";
import { loadExample } from "../src/examples/load-example.ts";
import { serveProcessMetrics } from "../src/metrics/process-metrics-server.ts";
import { apiOverHarnessPerFile, closeNow } from "./support/api-server.ts";
import { type FakeNode, findNode, visitDashboard } from "./support/dashboard-browser.ts";
import { startExampleHarness } from "./support/harness.ts";
import { type SseFrame, sseReader } from "./support/sse-reader.ts";
import { baseState } from "@rein/controller/testing";

const token = "ops-shared-token-0123456789";
const aliceToken = "ops-alice-token-0123456789";

describe("the operator console's API", () => {
  const request = (path: string, init: RequestInit = {}, bearer = token) =>
    fetch(`${api.base}${path}`, { ...init, headers: { "content-type": "application/json", authorization: `Bearer ${bearer}` } });
  const json = async <T>(path: string, init: RequestInit = {}, bearer = token) => {
    const response = await request(path, init, bearer);
    return { status: response.status, body: (await response.json()) as T };
  };

  const api = apiOverHarnessPerFile(() => startExampleHarness("sre-triage"), {
    token,
    namedTokens: { alice: aliceToken },
    feedIntervalMs: 50,
  });

  it("pushes a new run and its status change to every open /runs/events stream, with the counts after it", async () => {
    const open = async () => {
      const response = await request("/runs/events");
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("text/event-stream");
      const stream = sseReader(response);
      const first = await stream.until(() => true);
      expect(first.event).toBe("counts");
      await stream.until((frame) => frame.event === "ready");
      return stream;
    };
    const streams = [await open(), await open()];
    try {
      const createdAt = new Date().toISOString();
      const state = { ...baseState({ runId: "run_feed_a", status: "executing", createdAt, updatedAt: createdAt, version: 0 }) };
      await api.harness.runtime.runs.create({ ...state, goal: { ...state.goal, text: "Watch the feed" } });
      const isFeedRun = (status: RunStatus) => (frame: SseFrame) =>
        frame.event === "run" && (frame.data as RunSummary).id === "run_feed_a" && (frame.data as RunSummary).status === status;
      for (const stream of streams)
        expect((await stream.until(isFeedRun("executing"))).data).toMatchObject({ goal: "Watch the feed", startedAt: createdAt });

      await api.harness.runtime.runs.save({ ...state, status: "escalated", stopReason: "needs a person", version: 1 }, 0);
      for (const stream of streams) {
        expect((await stream.until(isFeedRun("escalated"))).data).toMatchObject({ waitingFor: { reply: "needs a person" } });
        const counts = (await stream.until((frame) => frame.event === "counts")).data as StatusCounts;
        expect(counts.byStatus.escalated).toBeGreaterThanOrEqual(1);
      }
    } finally {
      for (const stream of streams) await stream.close();
    }
    expect((await fetch(`${api.base}/runs/events`)).status).toBe(401);
  });

  it("queues a pending approval with its rule and the step's evidence, and records the named token's identity as approver", async () => {
    const example = await loadExample("sre-triage");
    const submitted = await json<{ runId: string }>("/runs", { method: "POST", body: JSON.stringify(example.goal) });
    const runId = submitted.body.runId;
    await api.harness.waitFor(runId, (state) => state.status === "waiting_approval");

    const { body } = await json<{ approvals: QueuedApproval[] }>("/approvals");
    const queued = body.approvals.find((approval) => approval.runId === runId);
    expect(queued).toMatchObject({ tool: "restart_service", goal: example.goal.text, status: "pending" });
    expect(queued?.rule).toEqual(expect.any(String));
    expect(queued?.callId).toEqual(expect.any(String));
    expect(Date.parse(queued?.expiresAt ?? "")).toBeGreaterThan(Date.now());
    // What the run had looked at before the step proposed the restart (the investigation step's calls), each with its output.
    const trace = await api.harness.runtime.trace.read(runId);
    const requested = trace.find((event) => event.kind === "approval.requested");
    expect(queued?.rule).toBe(requested?.payload.rule);
    const before = trace.flatMap((event) =>
      event.kind === "tool.called" && event.seq < (requested?.seq ?? 0) && event.payload.tool !== "restart_service" ? [event] : [],
    );
    expect(before.length).toBeGreaterThan(0);
    expect(queued?.evidence.map((call) => call.callId)).toEqual(before.slice(-10).map((event) => event.payload.callId));
    expect(queued?.evidence[0]?.output).toEqual(expect.any(String));
    expect(queued?.evidence[0]?.stepId).toBe(before[0]?.stepId);

    expect(await json("/identity", {}, aliceToken)).toEqual({ status: 200, body: { identity: "alice", role: "admin" } });
    expect(await json("/identity")).toEqual({ status: 200, body: { identity: "operator", role: "admin" } });
    expect((await request("/identity", {}, "ops-someone-else-0123456789")).status).toBe(401);

    // A name in the body is not who decided: the token is.
    const approve = await json<{ approver: string }>(
      `/approvals/${queued?.approvalId}/approve`,
      { method: "POST", body: JSON.stringify({ approver: "mallory", note: "load looks fine" }) },
      aliceToken,
    );
    expect(approve.status).toBe(200);
    expect(approve.body).toMatchObject({ approver: "http:alice", note: "load looks fine" });
    expect((await api.harness.waitFor(runId)).status).toBe("done");
    expect((await json<{ approvals: QueuedApproval[] }>("/approvals")).body.approvals.some((approval) => approval.runId === runId)).toBe(
      false,
    );
  });

  it("shows each queue's job counts and the role processes seen recently", async () => {
    const { status, body } = await json<QueueOverview>("/queues");
    expect(status).toBe(200);
    expect(body.queues.map((queue) => queue.queue).sort()).toEqual(
      api.harness.runtime.queues
        .all()
        .map((queue) => queue.name)
        .sort(),
    );
    for (const queue of body.queues)
      expect(queue).toMatchObject({
        waiting: expect.any(Number),
        active: expect.any(Number),
        delayed: expect.any(Number),
        failed: expect.any(Number),
      });
    const roles = body.workers.map((worker) => worker.roles.join("+")).sort();
    expect(roles).toEqual(expect.arrayContaining(["control", "evaluate", "plan", "step"]));
    for (const worker of body.workers) expect(Date.now() - Date.parse(worker.lastHeartbeat)).toBeLessThan(30_000);
  });
});

describe("the operator console's pages", () => {
  let html: string;
  const byTestId = (root: FakeNode, id: string) => findNode(root, (node) => node.dataset.testid === id);
  const allByTestId = (root: FakeNode, id: string): FakeNode[] => {
    const found: FakeNode[] = [];
    const visit = (node: FakeNode) => {
      for (const child of node.children) {
        if (typeof child !== "object" || child === null || !("children" in child)) continue;
        if ((child as FakeNode).dataset.testid === id) found.push(child as FakeNode);
        visit(child as FakeNode);
      }
    };
    visit(root);
    return found;
  };
  const click = async (node: FakeNode | undefined) => {
    if (!node) throw new Error("no such element on the page");
    await (node.onclick as () => Promise<void>)();
  };
  const open = (hash: string) => {
    const signedIn = visitDashboard(html, api.base, `#token=${aliceToken}`);
    return visitDashboard(html, api.base, hash, signedIn.session);
  };

  const api = apiOverHarnessPerFile(() => startExampleHarness("sre-triage"), { namedTokens: { alice: aliceToken }, feedIntervalMs: 50 });
  beforeAll(async () => {
    html = await (await fetch(`${api.base}/`)).text();
  });

  it("adds a new run to the list and updates its row when its status changes, without reloading the list", async () => {
    const page = open("");
    const row = (runId: string) => allByTestId(page.element("runs"), "run-row").find((node) => node.dataset.runId === runId);
    await page.until(() => page.element("runs-live").textContent === "live");
    const createdAt = new Date().toISOString();
    const state = baseState({ runId: "run_page_live", status: "executing", createdAt, updatedAt: createdAt, version: 0 });
    await api.harness.runtime.runs.create({ ...state, goal: { ...state.goal, text: "Appear in the open list" } });
    await page.until(() => row("run_page_live") !== undefined);
    expect(byTestId(row("run_page_live") as FakeNode, "run-goal")?.textContent).toBe("Appear in the open list");
    await api.harness.runtime.runs.save(
      { ...state, goal: { ...state.goal, text: "Appear in the open list" }, status: "escalated", stopReason: "stuck", version: 1 },
      0,
    );
    await page.until(() => row("run_page_live")?.dataset.status === "escalated");
    expect(byTestId(row("run_page_live") as FakeNode, "run-waiting")?.textContent).toBe("waiting for a reply: stuck");
    expect(page.requests.filter((request) => request.path.startsWith("/runs?"))).toHaveLength(1);
    await api.harness.runtime.runs.save({ ...state, status: "cancelled", version: 2 }, 1);
  });

  it("shows the approvals queue with the rule and evidence, and approves from it as the token's identity", async () => {
    const example = await loadExample("sre-triage");
    const submitted = await fetch(`${api.base}/runs`, {
      method: "POST",
      headers: { authorization: `Bearer ${aliceToken}`, "content-type": "application/json" },
      body: JSON.stringify(example.goal),
    });
    const { runId } = (await submitted.json()) as { runId: string };
    await api.harness.waitFor(runId, (state) => state.status === "waiting_approval");

    const page = open("#approvals");
    const card = () => allByTestId(page.element("detail"), "approval-card").find((node) => node.dataset.approvalId !== undefined);
    await page.until(() => card() !== undefined);
    const shown = card() as FakeNode;
    expect(byTestId(shown, "approval-action")?.textContent).toBe("restart_service");
    expect(byTestId(shown, "approval-rule")?.textContent).toMatch(/^Needs approval by rule \S/);
    expect(allByTestId(shown, "approval-evidence-call").length).toBeGreaterThan(0);
    expect(byTestId(shown, "approval-expiry")?.textContent).toMatch(/^expires in /);
    expect(JSON.parse(byTestId(shown, "approval-args")?.textContent as string)).toEqual(expect.any(Object));
    expect(page.element("identity").textContent).toBe("as alice (admin)");

    // A denial without a note is stopped in the page; an approval with one goes through.
    await click(byTestId(shown, "approval-deny"));
    expect(byTestId(shown, "approval-problem")?.textContent).toMatch(/must say why/);
    (byTestId(shown, "approval-note") as FakeNode).value = "the pool is saturated";
    await click(byTestId(shown, "approval-approve"));
    const approval = await api.harness.tooling.approvals.get(shown.dataset.approvalId as string);
    expect(approval).toMatchObject({ status: "approved", approver: "http:alice", note: "the pool is saturated" });
    expect((await api.harness.waitFor(runId)).status).toBe("done");
  });

  it("answers one escalated run and cancels another from the escalations view", async () => {
    for (const runId of ["run_page_answer", "run_page_cancel"]) {
      const createdAt = new Date().toISOString();
      const state = baseState({
        runId,
        status: "escalated",
        stopReason: "two fixes look equally likely",
        createdAt,
        updatedAt: createdAt,
        version: 0,
      });
      await api.harness.runtime.runs.create(state);
    }
    const page = open("#escalations");
    const card = (runId: string) => allByTestId(page.element("detail"), "escalation-card").find((node) => node.dataset.runId === runId);
    await page.until(() => card("run_page_answer") !== undefined && card("run_page_cancel") !== undefined);
    expect(byTestId(card("run_page_answer") as FakeNode, "escalation-reason")?.textContent).toBe("Why: two fixes look equally likely");

    (byTestId(card("run_page_answer") as FakeNode, "escalation-reply-input") as FakeNode).value = "try the cache fix first";
    await click(byTestId(card("run_page_answer") as FakeNode, "escalation-reply-send"));
    expect((await api.harness.waitFor("run_page_answer", (state) => state.status !== "escalated")).instruction).toBe(
      "try the cache fix first",
    );

    await click(byTestId(card("run_page_cancel") as FakeNode, "escalation-cancel"));
    expect((await api.harness.waitFor("run_page_cancel", (state) => state.status === "cancelled")).status).toBe("cancelled");
  });

  it("shows each queue's counts and the workers seen recently", async () => {
    const page = open("#queues");
    await page.until(() => byTestId(page.element("detail"), "worker-table") !== undefined);
    const queues = allByTestId(page.element("detail"), "queue-row").map((row) => row.dataset.queue);
    expect(queues.sort()).toEqual(
      api.harness.runtime.queues
        .all()
        .map((queue) => queue.name)
        .sort(),
    );
    const roles = allByTestId(page.element("detail"), "worker-roles").map((cell) => cell.textContent);
    expect(roles).toEqual(expect.arrayContaining(["control", "plan", "step", "evaluate"]));
  });

  it("says a wrong token was refused instead of inviting a choice of run", async () => {
    const page = visitDashboard(html, api.base, "#token=not-anyones-token-0123456789");
    await page.until(() => JSON.stringify(page.element("problem").children).includes("refused this token"));
    expect(JSON.stringify(page.element("detail").children)).not.toContain("Choose a run");
  });
});

describe("rein worker --metrics-port", () => {
  it("serves the process's own metrics, labelled with its roles", async () => {
    const { server, url } = await serveProcessMetrics({ port: 0, roles: ["step", "plan"] });
    try {
      const response = await fetch(url);
      expect(response.status).toBe(200);
      const text = await response.text();
      expect(text).toMatch(/^rein_process_process_cpu_user_seconds_total\{roles="step,plan"\} \d/m);
      expect(text).toMatch(/^rein_process_nodejs_heap_size_used_bytes\{roles="step,plan"\} \d/m);
      expect((await fetch(url.replace("/metrics", "/other"))).status).toBe(404);
    } finally {
      await closeNow(server);
    }
  });
});
