import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpApi } from "../src/api/http-api.ts";
import { bugfixExample, type Harness, startHarness } from "./support/harness.ts";

describe("HTTP API", () => {
  let harness: Harness;
  let server: Server;
  let base: string;
  const token = "test-token-123";
  const call = (path: string, init: RequestInit = {}, auth = true) =>
    fetch(`${base}${path}`, { ...init, headers: { "content-type": "application/json", ...(auth ? { authorization: `Bearer ${token}` } : {}) } });

  beforeAll(async () => {
    const { example, script } = await bugfixExample();
    harness = await startHarness(script, [], { config: example.config });
    server = createHttpApi({ runtime: harness.runtime, approvals: harness.tooling.approvals, approvalSigner: harness.desk.signer, knownTools: harness.tooling.registry.names(), token });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await harness.close();
  });

  it("submits a goal and streams its trace as server-sent events until it is done", async () => {
    const { example } = await bugfixExample();
    const submitted = await call("/runs", { method: "POST", body: JSON.stringify(example.goal) });
    expect(submitted.status).toBe(202);
    const { runId, events } = (await submitted.json()) as { runId: string; events: string };
    const stream = await call(events);
    expect(stream.headers.get("content-type")).toBe("text/event-stream");
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = "";
    while (!text.includes("event: run.done")) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
    await reader.cancel();
    expect(text).toMatch(/^id: 1\nevent: run\.submitted\ndata: \{/);
    expect(text).toContain("event: step.dispatched");
    const state = (await (await call(`/runs/${runId}`)).json()) as { status: string };
    expect(state.status).toBe("done");
  });

  it("interleaves the run's live model output, retries included, with its trace", async () => {
    const { example } = await bugfixExample();
    const { runId } = (await (await call("/runs", { method: "POST", body: JSON.stringify(example.goal) })).json()) as { runId: string };
    await harness.waitFor(runId);
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
    harness.runtime.live.publish({ type: "text_delta", runId, stepId: "s1", role: "worker", text: "Half an ans" });
    harness.runtime.live.publish({ type: "retry", runId, stepId: "s1", role: "worker", attempt: 1, reason: "stream_error", delayMs: 0 });
    await readUntil('"type":"retry"');
    await reader.cancel();
    expect(text).toContain(`event: live\ndata: {"type":"text_delta","runId":"${runId}","stepId":"s1","role":"worker","text":"Half an ans"}`);
    expect(text).toContain(`event: live\ndata: {"type":"retry","runId":"${runId}","stepId":"s1","role":"worker","attempt":1,"reason":"stream_error","delayMs":0}`);
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

  it("serves the dashboard page, which holds no data of its own", async () => {
    const page = await call("/", {}, false);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/text\/html/);
    const html = await page.text();
    expect(html).toContain("<title>Rein</title>");
    expect(html).toContain('fetch("/runs/" + runId + "/events"');
    // Live output is shown, and a retry clears what that role's call had shown.
    expect(html).toContain('if (event.type === "retry")');
    // A run's page lists each claim with the evaluator's finding and its evidence ids, then the gaps.
    expect(html).toContain('"claim (" + (status.get(claim.text) || "unchecked") + "): " + claim.text + " [evidence: "');
    expect(html).toContain('"gap: " + gap');
    expect(html).not.toContain(token);
  });

  it("requires the bearer token", async () => {
    const response = await call("/runs", {}, false);
    expect(response.status).toBe(401);
  });

  it("answers 404 for an unknown run or approval, and a denial needs a reason", async () => {
    expect((await call("/runs/run_nope")).status).toBe(404);
    expect((await call("/approvals/apr_nope/approve", { method: "POST", body: JSON.stringify({ approver: "ana" }) })).status).toBe(404);
    const denial = await call("/approvals/apr_nope/deny", { method: "POST", body: JSON.stringify({ approver: "ana" }) });
    expect(denial.status).toBe(400);
    expect(((await denial.json()) as { error: string }).error).toMatch(/a denial must say why/);
  });
});
