import { describe, expect, it } from "vitest";
import type { TraceKind, TracePayloadInput, TypedTraceEvent } from "@rein/trace";
import { type TraceEnvelope, traceEventOf } from "@rein/runtime/testing";
import { dashboardPage } from "../../src/api/dashboard/dashboard-page.ts";
import { buildRunView } from "../../src/trace/views/run-view/build-run-view.ts";
import { renderTimeline } from "../../src/trace/views/timeline-view.ts";
import { type FakeNode, fakeApi, findNode, findNodes, visitDashboard } from "../support/dashboard-browser.ts";

let seq = 0;
const at = <Kind extends TraceKind>(kind: Kind, payload: TracePayloadInput<Kind>, extra: TraceEnvelope = {}): TypedTraceEvent => {
  seq += 1;
  return traceEventOf(kind, payload, {
    seq,
    ts: new Date(Date.UTC(2026, 0, 1, 0, 0, seq)).toISOString(),
    runId: "run_exit",
    stepId: "s1",
    ...extra,
  });
};

/** One run_command call as the executor traces it: called, executed (with its exit), result. */
function commandCall(callId: string, index: number, executed: Record<string, unknown>): TypedTraceEvent[] {
  const base = { callId, index, tool: "run_command" };
  return [
    at("tool.called", { ...base, idempotencyKey: `run_exit:s1:1:${index}`, argBytes: 34, args: { command: "node", args: ["--test"] } }),
    at("tool.executed", { ...base, status: "ok", attempts: 1, ...executed }),
    at("tool.result", { ...base, name: "run_command", status: "ok", durationMs: 812, attempts: 1 }, { durationMs: 812 }),
  ];
}

const failing = commandCall("call_1", 0, { exitCode: 1, killedBy: null, output: "exit code: 1\n--- stdout ---\nnot ok 1\n" });
const killed = commandCall("call_2", 1, {
  exitCode: null,
  killedBy: "SIGKILL",
  output: "exit code: none (killed by SIGKILL after timeout)\n",
});
const passing = commandCall("call_3", 2, { exitCode: 0, killedBy: null, output: "exit code: 0\n--- stdout ---\nok 1\n" });

describe("a command's exit in the timeline", () => {
  const text = renderTimeline([...failing, ...killed, ...passing]);

  it("shows a non-zero exit as `exit N` on the call's line, not `ok`", () => {
    expect(text).toContain('#0 run_command({"command":"node","args":["--test"]}) → exit 1 812.0 ms');
  });

  it("shows a killed command by its signal and a clean exit as ok", () => {
    expect(text).toContain("#1 run_command(");
    expect(text).toMatch(/#1 run_command\(.*\) → killed by SIGKILL 812\.0 ms/);
    expect(text).toMatch(/#2 run_command\(.*\) → ok 812\.0 ms/);
  });
});

describe("a command's exit on the dashboard's run page", () => {
  // The page's own script shows the run, its view served as GET /runs/{id}/view does: each call's line in the timeline.
  const callLines = async (events: TypedTraceEvent[]) => {
    const view = buildRunView({ runId: "run_exit", state: null, events, blobs: {} });
    expect(view.unreadable).toEqual([]);
    const server = fakeApi({
      "/runs/run_exit": { goal: { text: "run the tests" }, status: "executing" },
      "/approvals": { approvals: [] },
      "/runs/run_exit/view": view,
    });
    const visit = visitDashboard(dashboardPage().html, server, "#run_exit");
    const timeline = () => findNode(visit.element("detail"), (node) => node.dataset.testid === "run-timeline");
    await visit.until(() => timeline() !== undefined);
    return findNodes(timeline() as FakeNode, (node) => node.tag === "details").map((details) => ({
      status: details.dataset.status,
      failed: details.className.includes("failed"),
      summary: findNode(details, (node) => node.tag === "summary")?.textContent,
      output: findNode(details, (node) => node.dataset.testid === "call-output")?.textContent,
    }));
  };

  it("shows a non-zero exit as `exit N` on the call's line, marked failed, with its output", async () => {
    const [line] = await callLines(failing);
    expect(line).toMatchObject({ status: "exit 1", failed: true, output: "exit code: 1\n--- stdout ---\nnot ok 1\n" });
    expect(line?.summary).toMatch(/\[s1\] #0 run_command → exit 1 \(812 ms\)$/);
  });

  it("shows a killed command by its signal and a clean exit as ok", async () => {
    expect((await callLines(killed))[0]).toMatchObject({ status: "killed by SIGKILL", failed: true });
    expect((await callLines(passing))[0]).toMatchObject({ status: "ok", failed: false });
  });
});
