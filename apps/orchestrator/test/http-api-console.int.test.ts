import { describe, expect, it } from "vitest";
import type { RunState, RunStatus } from "@rein/contracts/run";
import { findTraceEvent } from "@rein/trace";
import { createTestRuntime } from "@rein/runtime/testing";
import { apiRoutes } from "../src/api/http-api.ts";
import type { RunPage } from "../src/api/run-summaries.ts";
import { loadBundle } from "../src/trace/trace-bundle.ts";
import { renderCall } from "../src/trace/views/call-view.ts";
import { buildRunView } from "../src/trace/views/run-view/build-run-view.ts";
import type { RunView } from "../src/trace/views/run-view/run-view-model.ts";
import { bugfixExample, startExampleHarness, startHarness } from "./support/harness.ts";
import { freePort } from "../src/redis/embedded-redis.ts";
import { apiOverHarnessPerFile, closeNow, listenApi } from "./support/api-server.ts";
import { startPrivateRedis } from "./support/private-redis.ts";
import { baseState } from "@rein/controller/testing";

const token = "test-token-0123456789abcdef";

describe("the operator API", () => {
  const call = (path: string, init: RequestInit = {}) =>
    fetch(`${api.base}${path}`, { ...init, headers: { "content-type": "application/json", authorization: `Bearer ${token}` } });
  const json = async <T>(path: string, init: RequestInit = {}) => {
    const response = await call(path, init);
    return { status: response.status, body: (await response.json()) as T };
  };
  /** A stored run that no worker touches, created `minutesAgo` before now. */
  const fixtureRun = async (runId: string, status: RunStatus, text: string, minutesAgo: number, build?: string) => {
    const createdAt = new Date(Date.now() - minutesAgo * 60_000).toISOString();
    const state = baseState({ runId, status, createdAt, updatedAt: createdAt, version: 0, build });
    await api.harness.runtime.runs.create({ ...state, goal: { ...state.goal, text } });
  };

  const api = apiOverHarnessPerFile(() => startExampleHarness("bugfix", { seeds: true }), { token, roles: ["control", "step"] });

  it("lists a finished run as a summary, and shows one of its tool calls as `rein trace --call` does", async () => {
    const { example } = await bugfixExample();
    const submitted = await json<{ runId: string }>("/runs", {
      method: "POST",
      body: JSON.stringify({ ...example.goal, workspace: "project" }),
    });
    const runId = submitted.body.runId;
    const finished = await api.harness.waitFor(runId);
    expect(finished.status).toBe("done");

    const { body: page } = await json<RunPage>("/runs");
    const summary = page.runs.find((run) => run.id === runId);
    expect(summary).toMatchObject({ status: "done", goal: example.goal.text, startedAt: finished.createdAt, waitingFor: null });
    expect(summary?.steps).toBeGreaterThan(0);
    expect(summary?.tokens).toBe(finished.usage.inputTokens + finished.usage.outputTokens);
    expect(summary?.tokens).toBeGreaterThan(0);
    expect(summary?.durationMs).toBe(Date.parse(finished.updatedAt) - Date.parse(finished.createdAt));

    const bundle = await loadBundle(api.harness.runtime, runId);
    const called = findTraceEvent(bundle.events, "tool.called", (event) => event.payload.tool === "run_command");
    const callId = called?.payload.callId ?? "no run_command call";
    const { status, body } = await json<{
      uses: { tool: string; input: unknown; output: string | null; status: string; exitCode: number | null }[];
    }>(`/runs/${runId}/calls/${callId}`);
    expect(status).toBe(200);
    expect(body.uses[0]).toMatchObject({ tool: "run_command", input: called?.payload.args });
    expect(body.uses[0]?.output).toEqual(expect.any(String));
    // One source for both faces: the CLI text carries the same status and output.
    const text = renderCall(bundle, callId);
    expect(text).toContain(`run_command → ${body.uses[0]?.status}`);
    expect(text).toContain((body.uses[0]?.output ?? "").split("\n")[0]);

    const unknown = await json<{ error: string }>(`/runs/${runId}/calls/call_nope`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatch(/has no call call_nope; its calls: /);

    // The run page's view model: the same calls, the failing test run shown by its exit.
    const view = await json<RunView>(`/runs/${runId}/view`);
    expect(view.status).toBe(200);
    expect(view.body).toEqual(JSON.parse(JSON.stringify(buildRunView(await loadBundle(api.harness.runtime, runId)))));
    expect(view.body.calls.filter((each) => each.tool === "run_command").map((each) => each.status)).toEqual(["exit 1", "ok"]);
    expect((await json<{ error: string }>("/runs/run_nope/view")).status).toBe(404);

    // A whole output is read through the run that stored it, and only through that run.
    const artifactId = await api.harness.runtime.artifacts.put(runId, "the whole output\n", { tool: "run_command" });
    const artifact = await json<{ content: string; tool: string }>(`/runs/${runId}/artifacts/${artifactId}`);
    expect(artifact).toMatchObject({ status: 200, body: { content: "the whole output\n", tool: "run_command" } });
    const elsewhere = await api.harness.runtime.artifacts.put("run_other", "not this run's");
    const refused = await json<{ error: string }>(`/runs/${runId}/artifacts/${elsewhere}`);
    expect(refused.status).toBe(404);
    expect(refused.body.error).toMatch(/has no artifact/);
  });

  it("pages newest first with a cursor, filters by status and text, and counts per status", async () => {
    await fixtureRun("run_page_a", "failed", "Rotate the zebra certificates", 50);
    await fixtureRun("run_page_b", "escalated", "Find the zebra leak", 40);
    await fixtureRun("run_page_c", "done", "Tidy the logs", 30);
    await fixtureRun("run_page_d", "escalated", "Explain the outage", 20, "2026.12.5");
    await fixtureRun("run_page_e", "waiting_approval", "Restart the zebra cache", 10);

    const seen: string[] = [];
    let cursor: string | null = "";
    for (let pages = 0; cursor !== null && pages < 20; pages += 1) {
      const { body: page }: { body: RunPage } = await json<RunPage>(
        `/runs?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      );
      expect(page.runs.length).toBeLessThanOrEqual(2);
      seen.push(...page.runs.map((run) => run.id));
      cursor = page.nextCursor;
    }
    expect(cursor).toBeNull();
    const fixtures = seen.filter((id) => id.startsWith("run_page_"));
    expect(fixtures).toEqual(["run_page_e", "run_page_d", "run_page_c", "run_page_b", "run_page_a"]);
    expect(new Set(seen).size).toBe(seen.length);

    const { body: escalated } = await json<RunPage>("/runs?status=escalated");
    expect(escalated.runs.map((run) => run.id)).toEqual(["run_page_d", "run_page_b"]);
    expect(escalated.runs[0]?.waitingFor).toEqual({ reply: expect.any(String) });
    const { body: zebra } = await json<RunPage>("/runs?q=ZEBRA");
    expect(zebra.runs.map((run) => run.id)).toEqual(["run_page_e", "run_page_b", "run_page_a"]);
    expect(zebra.runs[0]?.waitingFor).toEqual({ approvals: [] });
    const { body: both } = await json<RunPage>("/runs?status=escalated&q=zebra");
    expect(both.runs.map((run) => run.id)).toEqual(["run_page_b"]);
    const { body: ofBuild } = await json<RunPage>("/runs?build=2026.12.5");
    expect(ofBuild.runs.map((run) => [run.id, run.build])).toEqual([["run_page_d", "2026.12.5"]]);
    expect((await json("/runs?build=not%20a%20build")).status).toBe(400);

    // Counts may be up to a few seconds old; a fresh server counts now.
    const fresh = await listenApi(api.options);
    try {
      const counts = (
        (await (await fetch(`${fresh.base}/runs?limit=1`, { headers: { authorization: `Bearer ${token}` } })).json()) as RunPage
      ).counts;
      expect(counts.byStatus.escalated).toBe(2);
      expect(counts.byStatus.waiting_approval).toBe(1);
      expect(counts.exact).toBe(true);
      expect(counts.counted).toBe(seen.length);
    } finally {
      await closeNow(fresh.server);
    }

    const bad = await json<{ error: string }>("/runs?status=sleeping");
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/^status: /);
    expect((await json("/runs?limit=0")).status).toBe(400);
    expect((await json("/runs?cursor=nonsense")).status).toBe(400);
  });

  it("exposes the deployment's counters from the traces in Prometheus text, each event counted once however often it is scraped", async () => {
    // Before the reply test resumes a run: every run here has finished, so the traces hold still.
    const runIds = await api.harness.runtime.runs.list(1000);
    const traces = await Promise.all(runIds.map((runId) => api.harness.runtime.trace.read(runId)));
    const events = traces.flat();
    const scrape = async () => {
      const response = await call("/metrics");
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toMatch(/^text\/plain/);
      return response.text();
    };
    const sample = (text: string, series: string) => {
      const line = text.split("\n").find((row) => row.startsWith(`${series} `));
      return line === undefined ? undefined : Number(line.slice(series.length + 1));
    };
    await scrape();
    const text = await scrape();
    expect(sample(text, "rein_runs_submitted_total")).toBe(events.filter((event) => event.kind === "run.submitted").length);
    expect(sample(text, "rein_steps_dispatched_total")).toBe(events.filter((event) => event.kind === "step.dispatched").length);
    expect(sample(text, "rein_steps_dispatched_total")).toBeGreaterThan(0);
    const commandCalls = events.filter(
      (event) => event.kind === "tool.result" && event.payload.tool === "run_command" && event.payload.status === "ok",
    ).length;
    expect(commandCalls).toBeGreaterThan(0);
    expect(sample(text, 'rein_tool_calls_total{tool="run_command",outcome="ok"}')).toBe(commandCalls);
    const responded = events.filter((event) => event.kind === "model.responded");
    const workerInput = responded
      .filter((event) => event.payload.role === "worker")
      .reduce((sum, event) => sum + (event.usage?.inputTokens ?? 0), 0);
    const workerModel = responded.find((event) => event.payload.role === "worker")?.payload.model as string;
    expect(workerInput).toBeGreaterThan(0);
    expect(sample(text, `rein_model_tokens_total{role="worker",model="${workerModel}",type="input"}`)).toBe(workerInput);
    expect(sample(text, 'rein_runs_ended_total{status="done"}')).toBeGreaterThan(0);
    expect(sample(text, 'rein_tool_call_seconds_bucket{tool="run_command",le="+Inf"}')).toBe(
      sample(text, 'rein_tool_call_seconds_count{tool="run_command"}'),
    );
    expect(sample(text, 'rein_runs{status="escalated"}')).toEqual(expect.any(Number));
    expect(sample(text, 'rein_queue_jobs{queue="step",state="waiting"}')).toBe(0);
    expect(sample(text, "rein_approvals_pending")).toBe(0);
  });

  it("answers an escalated run over HTTP as `rein reply` does, and refuses a reply to any other", async () => {
    await fixtureRun("run_reply_done", "done", "Already finished", 5);
    const late = await json<{ error: string }>("/runs/run_reply_done/reply", {
      method: "POST",
      body: JSON.stringify({ instruction: "try again" }),
    });
    expect(late.status).toBe(400);
    expect(late.body.error).toMatch(/is done; only an escalated run takes a reply/);
    expect((await json("/runs/run_nope/reply", { method: "POST", body: JSON.stringify({ instruction: "x" }) })).status).toBe(404);
    expect((await json("/runs/run_reply_done/reply", { method: "POST", body: JSON.stringify({ instruction: "  " }) })).status).toBe(400);

    await fixtureRun("run_reply_esc", "escalated", "Needs a person", 4);
    const replied = await json<{ reply: string }>("/runs/run_reply_esc/reply", {
      method: "POST",
      body: JSON.stringify({ instruction: "probe each key once" }),
    });
    expect(replied).toEqual({ status: 202, body: { runId: "run_reply_esc", reply: "sent" } });
    const resumed: RunState = await api.harness.waitFor("run_reply_esc", (state) => state.status !== "escalated");
    expect(resumed.instruction).toBe("probe each key once");
  });

  it("reports health and readiness with this process's roles", async () => {
    expect(await json("/healthz")).toEqual({ status: 200, body: { ok: true, redis: "up", roles: ["control", "step"] } });
    expect(await json("/readyz")).toEqual({ status: 200, body: { ok: true, redis: "up", roles: ["control", "step"], queues: "ready" } });
    expect((await fetch(`${api.base}/healthz`)).status).toBe(401);
  });

  it("documents every route it serves in /openapi.json, and serves every route it documents", async () => {
    const { status, body } = await json<{ paths: Record<string, Record<string, unknown>> }>("/openapi.json");
    expect(status).toBe(200);
    const documented = Object.entries(body.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    const served = apiRoutes(api.options).map((route) => `${route.method} ${route.path}`);
    expect(documented.sort()).toEqual(served.sort());
    // The role each operation says it needs is the one the server enforces.
    for (const route of apiRoutes(api.options).filter((candidate) => !candidate.public)) {
      expect(body.paths[route.path]?.[route.method.toLowerCase()]).toMatchObject({ "x-rein-role": route.role });
    }
  });
});

describe("health when Redis is gone", () => {
  it("answers 503 from /healthz when nothing listens where its Redis should be", async () => {
    const harness = await startHarness({ planner: [] });
    const runtime = await createTestRuntime({ redisUrl: `redis://127.0.0.1:${await freePort()}` });
    const { server, base } = await listenApi({
      runtime,
      approvals: harness.tooling.approvals,
      approvalSigner: harness.desk.signer,
      knownTools: [],
      token,
      roles: ["api"],
    });
    try {
      const response = await fetch(`${base}/healthz`, { headers: { authorization: `Bearer ${token}` } });
      expect(response.status).toBe(503);
      expect(await response.json()).toMatchObject({ ok: false, redis: "down", roles: ["api"], error: expect.any(String) });
    } finally {
      await closeNow(server);
      await runtime.close();
      await harness.close();
    }
  }, 30_000);

  it("answers 503 from /healthz and /readyz once its Redis stops", async () => {
    const harness = await startHarness({ planner: [] });
    const redis = await startPrivateRedis([], "");
    const runtime = await createTestRuntime({ redisUrl: redis.url() });
    const { server, base } = await listenApi({
      runtime,
      approvals: harness.tooling.approvals,
      approvalSigner: harness.desk.signer,
      knownTools: [],
      token,
      roles: ["api"],
    });
    const probe = async (path: string) => {
      const response = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } });
      return { status: response.status, body: (await response.json()) as { redis: string; roles: string[]; error?: string } };
    };
    try {
      expect((await probe("/healthz")).status).toBe(200);
      await redis.stop();
      const down = await probe("/healthz");
      expect(down.status).toBe(503);
      expect(down.body).toMatchObject({ redis: "down", roles: ["api"] });
      expect(down.body.error).toEqual(expect.any(String));
      expect((await probe("/readyz")).status).toBe(503);
    } finally {
      await closeNow(server);
      await runtime.close();
      await harness.close();
    }
  }, 30_000);
});
