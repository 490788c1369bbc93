import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { Approval } from "@rein/contracts/run";
import { createHttpApi } from "../src/api/http-api.ts";
import { loadExample } from "../src/examples/load-example.ts";
import { bugfixExample, startExampleHarness } from "./support/harness.ts";
import { type FakeNode, findNode, visitDashboard } from "./support/dashboard-browser.ts";
import { rawRequest } from "./support/raw-http.ts";
import { apiOverHarnessPerFile } from "./support/api-server.ts";

const token = "test-token-0123456789abcdef";

/** Reads a server-sent event stream until `until` appears in it. */
async function readEvents(response: Response, until: string): Promise<string> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = "";
  while (!text.includes(until)) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value);
  }
  await reader.cancel();
  return text;
}

describe("HTTP API", () => {
  const call = (path: string, init: RequestInit = {}, auth = true) =>
    fetch(`${api.base}${path}`, {
      ...init,
      headers: { "content-type": "application/json", ...(auth ? { authorization: `Bearer ${token}` } : {}) },
    });

  // A goal over HTTP names a seed: the example's project, under a seedsRoot of the example's folder.
  const api = apiOverHarnessPerFile(() => startExampleHarness("bugfix", { seeds: true }), { token });

  it("submits a goal and streams its trace as server-sent events until it is done", async () => {
    const { example } = await bugfixExample();
    const submitted = await call("/runs", { method: "POST", body: JSON.stringify({ ...example.goal, workspace: "project" }) });
    expect(submitted.status).toBe(202);
    const { runId, events } = (await submitted.json()) as { runId: string; events: string };
    const stream = await call(events);
    expect(stream.headers.get("content-type")).toBe("text/event-stream");
    const text = await readEvents(stream, "event: run.done");
    expect(text).toMatch(/^id: 1\nevent: run\.submitted\ndata: \{/);
    expect(text).toContain("event: step.dispatched");
    const state = (await (await call(`/runs/${runId}`)).json()) as { status: string };
    expect(state.status).toBe("done");
  });

  it("interleaves the run's live model output, retries included, with its trace", async () => {
    const { example } = await bugfixExample();
    const { runId } = (await (
      await call("/runs", { method: "POST", body: JSON.stringify({ ...example.goal, workspace: "project" }) })
    ).json()) as { runId: string };
    await api.harness.waitFor(runId);
    const stream = await call(`/runs/${runId}/events`);
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = "";
    const readUntil = async (marker: string) => {
      while (!text.includes(marker)) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value);
      }
    };
    await readUntil("event: run.done");
    api.harness.runtime.live.publish({ type: "text_delta", runId, stepId: "s1", role: "worker", text: "Half an ans" });
    api.harness.runtime.live.publish({
      type: "retry",
      runId,
      stepId: "s1",
      role: "worker",
      attempt: 1,
      reason: "stream_error",
      delayMs: 0,
    });
    await readUntil('"type":"retry"');
    await reader.cancel();
    expect(text).toContain(
      `event: live\ndata: {"type":"text_delta","runId":"${runId}","stepId":"s1","role":"worker","text":"Half an ans"}`,
    );
    expect(text).toContain(
      `event: live\ndata: {"type":"retry","runId":"${runId}","stepId":"s1","role":"worker","attempt":1,"reason":"stream_error","delayMs":0}`,
    );
  });

  it("refuses a goal with a message that says what was wrong", async () => {
    const response = await call("/runs", { method: "POST", body: JSON.stringify({ text: "" }) });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toMatch(/goal\.text: the goal text is empty/);
  });

  it("refuses a body that is not JSON", async () => {
    const response = await call("/runs", { method: "POST", body: "{ nope" });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toMatch(/not JSON/);
  });

  it("serves the dashboard page, which holds no data of its own and cannot be framed", async () => {
    const page = await call("/", {}, false);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/text\/html/);
    const policy = page.headers.get("content-security-policy") ?? "";
    expect(policy).toContain("frame-ancestors 'none'");
    const html = await page.text();
    // Scripts run by hash: the page's own inline script, and no other (no 'unsafe-inline', nothing fetched).
    const script = /<script>([\s\S]*)<\/script>/.exec(html)?.[1] ?? "";
    const scriptSrc = policy.split(";").find((directive) => directive.trim().startsWith("script-src"));
    expect(scriptSrc?.trim()).toBe(`script-src 'sha256-${createHash("sha256").update(script).digest("base64")}'`);
    expect(html).toContain("<title>Rein</title>");
    expect(html).toContain('fetch("/runs/" + runId + "/events"');
    // Live output is shown, and a retry clears what that role's call had shown.
    expect(html).toContain('if (event.type === "retry")');
    // A run's page is drawn from the run's view model; each claim links its evidence to the call behind it, then the gaps.
    expect(html).toContain('api("/runs/" + runId + "/view")');
    expect(html).toContain('href: "#" + callAnchor(callKey)');
    expect(html).toContain('"gap: " + gap');
    expect(html).toContain('sessionStorage.setItem("rein-token"');
    // Decisions and replies are made in the page, never through a prompt() dialog.
    expect(html).not.toContain("prompt(");
    expect(html).toContain('"/runs/" + runId + "/reply"');
    expect(html).not.toContain(token);
  });

  it("works in a browser opened at the printed URL: it keeps the token for the tab and sends it on every request", async () => {
    const submitted = await call("/runs", {
      method: "POST",
      body: JSON.stringify({ text: "list the files", tools: [{ name: "list_files" }] }),
    });
    expect(submitted.status).toBe(202);
    const html = await (await call("/", {}, false)).text();
    const visit = visitDashboard(html, api.base, `#token=${token}`);
    const row = () => findNode(visit.element("runs"), (node) => node.dataset.testid === "run-row");
    await visit.until(() => row() !== undefined);
    expect(visit.session.get("rein-token")).toBe(token);
    expect(visit.location.hash).toBe("");
    expect(visit.element("summary").textContent).toMatch(/^[1-9]\d* recent runs$/);
    // A row per run, each from its summary in the list request made once the live feed was ready.
    expect(findNode(row() as FakeNode, (node) => node.dataset.testid === "run-goal")?.textContent).toEqual(expect.any(String));
    expect(visit.requests.map((request) => request.path).sort()).toEqual(["/identity", "/runs/events", "/runs?limit=50"]);
    expect(visit.requests.length).toBeGreaterThan(0);
    for (const request of visit.requests) {
      expect(request.authorization, request.path).toBe(`Bearer ${token}`);
      expect(request.status, request.path).toBe(200);
    }

    // Without the token (a new tab, no fragment), it asks for nothing and says why nothing shows.
    const stranger = visitDashboard(html, api.base, "");
    expect(stranger.requests).toEqual([]);
    expect(JSON.stringify(stranger.element("problem").children)).toContain("No API token");
    expect(JSON.stringify(stranger.element("detail").children)).not.toContain("Choose a run");
    // A wrong token: the page says the API refused it, not "Choose a run."
    const wrong = visitDashboard(html, api.base, `#token=${token.slice(0, -1)}x`);
    await wrong.until(() => JSON.stringify(wrong.element("problem").children).includes("refused this token"));
    expect(JSON.stringify(wrong.element("detail").children)).not.toContain("Choose a run");
  });

  it("requires the bearer token on every route but the page", async () => {
    for (const path of ["/runs", "/approvals", "/runs/run_x", "/runs/run_x/events"]) expect((await call(path, {}, false)).status).toBe(401);
    const wrong = await fetch(`${api.base}/runs`, { headers: { authorization: `Bearer ${token.slice(0, -1)}x` } });
    expect(wrong.status).toBe(401);
  });

  it("answers 404 for an unknown run or approval, and a denial needs a reason", async () => {
    expect((await call("/runs/run_nope")).status).toBe(404);
    expect((await call("/approvals/apr_nope/approve", { method: "POST", body: JSON.stringify({ approver: "ana" }) })).status).toBe(404);
    const denial = await call("/approvals/apr_nope/deny", { method: "POST", body: JSON.stringify({ approver: "ana" }) });
    expect(denial.status).toBe(400);
    expect(((await denial.json()) as { error: string }).error).toMatch(/a denial must say why/);
  });

  it("refuses to start without a real token", () => {
    const options = {
      runtime: api.harness.runtime,
      approvals: api.harness.tooling.approvals,
      approvalSigner: api.harness.desk.signer,
      knownTools: [],
    };
    expect(() => createHttpApi({ ...options, token: "" })).toThrow(/at least 16 characters/);
    expect(() => createHttpApi({ ...options, token: "short" })).toThrow(/at least 16 characters/);
  });
});

describe("HTTP API against a hostile web page", () => {
  const goal = JSON.stringify({ text: "list the files", tools: [{ name: "list_files" }] });

  const api = apiOverHarnessPerFile(() => startExampleHarness("bugfix"), { token, allowedOrigins: ["https://ops.example"] });

  const own = () => ({ host: `127.0.0.1:${api.port}` });
  const runsBefore = async () => (await api.harness.runtime.runs.list(100)).length;

  it("refuses a cross-site text/plain POST, the request a form or fetch can send without a preflight", async () => {
    const before = await runsBefore();
    const crossSite = await rawRequest(api.port, {
      method: "POST",
      path: "/runs",
      headers: { ...own(), origin: "http://evil.example", "content-type": "text/plain" },
      body: goal,
    });
    expect(crossSite.status).toBe(403);
    // Even with the token and no Origin at all, only JSON is read.
    const plain = await rawRequest(api.port, {
      method: "POST",
      path: "/runs",
      headers: { ...own(), authorization: `Bearer ${token}`, "content-type": "text/plain" },
      body: goal,
    });
    expect(plain.status).toBe(415);
    expect(JSON.parse(plain.body).error).toMatch(/expected application\/json/);
    const form = await rawRequest(api.port, {
      method: "POST",
      path: "/runs",
      headers: { ...own(), authorization: `Bearer ${token}`, "content-type": "application/x-www-form-urlencoded" },
      body: "text=x",
    });
    expect(form.status).toBe(415);
    expect(await runsBefore()).toBe(before);
  });

  it("refuses a foreign Host header, as DNS rebinding sends, even with the token", async () => {
    const before = await runsBefore();
    for (const host of [`evil.example:${api.port}`, "evil.example", `localhost.evil.example:${api.port}`, `127.0.0.1.nip.io:${api.port}`]) {
      const rebound = await rawRequest(api.port, {
        method: "POST",
        path: "/runs",
        headers: { host, authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: goal,
      });
      expect(rebound.status, host).toBe(421);
      expect((await rawRequest(api.port, { path: "/", headers: { host } })).status, host).toBe(421);
    }
    expect(await runsBefore()).toBe(before);
  });

  it("refuses a foreign Origin even with the token and JSON, and grants it no preflight", async () => {
    const before = await runsBefore();
    for (const origin of ["http://evil.example", "null", `http://127.0.0.1:${api.port + 1}`, "https://ops.example.evil.example"]) {
      const response = await rawRequest(api.port, {
        method: "POST",
        path: "/runs",
        headers: { ...own(), origin, authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: goal,
      });
      expect(response.status, origin).toBe(403);
      const preflight = await rawRequest(api.port, {
        method: "OPTIONS",
        path: "/runs",
        headers: { ...own(), origin, "access-control-request-method": "POST" },
      });
      expect(preflight.status, origin).toBe(403);
      expect(preflight.headers["access-control-allow-origin"]).toBeUndefined();
    }
    expect(await runsBefore()).toBe(before);
  });

  it("refuses a tokenless request from its own page too", async () => {
    const response = await rawRequest(api.port, {
      method: "POST",
      path: "/runs",
      headers: { ...own(), origin: `http://127.0.0.1:${api.port}`, "content-type": "application/json" },
      body: goal,
    });
    expect(response.status).toBe(401);
  });

  it("lets its own page and an --allow-origin origin in with the token", async () => {
    const same = await rawRequest(api.port, {
      path: "/runs",
      headers: { ...own(), origin: `http://127.0.0.1:${api.port}`, authorization: `Bearer ${token}` },
    });
    expect(same.status).toBe(200);
    expect(
      (await rawRequest(api.port, { path: "/runs", headers: { host: `localhost:${api.port}`, authorization: `Bearer ${token}` } })).status,
    ).toBe(200);
    const preflight = await rawRequest(api.port, {
      method: "OPTIONS",
      path: "/runs",
      headers: { ...own(), origin: "https://ops.example", "access-control-request-method": "POST" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers["access-control-allow-origin"]).toBe("https://ops.example");
    const allowed = await rawRequest(api.port, {
      path: "/runs",
      headers: { host: "ops.example", origin: "https://ops.example", authorization: `Bearer ${token}` },
    });
    expect(allowed.status).toBe(200);
    expect(allowed.headers["access-control-allow-origin"]).toBe("https://ops.example");
  });
});

describe("approving over HTTP", () => {
  const api = apiOverHarnessPerFile(() => startExampleHarness("sre-triage"), { token });

  it("submits, follows the events, approves the waiting restart, and it runs exactly once", async () => {
    const example = await loadExample("sre-triage");
    const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    const submitted = await fetch(`${api.base}/runs`, { method: "POST", headers, body: JSON.stringify(example.goal) });
    expect(submitted.status).toBe(202);
    const { runId, events } = (await submitted.json()) as { runId: string; events: string };
    const stream = await fetch(`${api.base}${events}`, { headers: { authorization: `Bearer ${token}` } });
    expect(await readEvents(stream, "event: step.suspended")).toContain("event: run.submitted");

    await api.harness.waitFor(runId, (state) => state.status === "waiting_approval");
    const { approvals } = (await (await fetch(`${api.base}/approvals`, { headers })).json()) as { approvals: Approval[] };
    const pending = approvals.find((approval) => approval.runId === runId);
    expect(pending?.tool).toBe("restart_service");
    // Approved from the run's page: a name and a note typed into it, then the button.
    const html = await (await fetch(`${api.base}/`)).text();
    const visit = visitDashboard(html, api.base, `#token=${token}`);
    const page = visitDashboard(html, api.base, `#${runId}`, visit.session);
    const form = () => findNode(page.element("detail"), (node) => node.className === "approval");
    await page.until(() => form() !== undefined);
    const note = findNode(form() as FakeNode, (node) => node.dataset.testid === "approval-note") as FakeNode;
    const approve = findNode(form() as FakeNode, (node) => node.textContent === "Approve") as FakeNode;
    note.value = "checked the dashboards";
    await (approve.onclick as () => Promise<void>)();
    const decided = page.requests.find((request) => request.path === `/approvals/${pending?.approvalId}/approve`);
    expect(decided).toEqual({ path: `/approvals/${pending?.approvalId}/approve`, authorization: `Bearer ${token}`, status: 200 });
    const approval = await api.harness.tooling.approvals.get(pending?.approvalId as string);
    // The approver is the token's identity, whatever name the page sent.
    expect(approval).toMatchObject({ approver: "http:operator", note: "checked the dashboards" });

    const state = await api.harness.waitFor(runId);
    expect(state.status).toBe("done");
    const trace = await api.harness.runtime.trace.read(runId);
    expect(trace.filter((event) => event.kind === "tool.executed" && event.payload.tool === "restart_service")).toHaveLength(1);
    expect(trace.some((event) => event.kind === "approval.consumed")).toBe(true);
    expect(trace.some((event) => event.kind === "approval.forged")).toBe(false);
  });
});
