import { describe, expect, it } from "vitest";
import type { CallInFlight, LiveEvent } from "@rein/runtime";
import { dashboardPage } from "../src/api/dashboard/dashboard-page.ts";
import { buildRunView } from "../src/trace/views/run-view/build-run-view.ts";
import { fakeApi, findNode, findNodes, visitDashboard } from "./support/dashboard-browser.ts";

/**
 * The run page shows a tool call while it runs (issue 32.6): from the view's
 * calls in flight when the page opens mid-call, and from the live channel
 * for calls that start later; a call leaves when the channel says it ended.
 */

const RUN = "run_in_flight";
const END_TEXT = "(end of test)";
const END: LiveEvent = { type: "text_delta", runId: RUN, stepId: null, role: "evaluator", text: END_TEXT };
const source = { runId: RUN, stepId: "s1", role: "worker" } as const;
const running: CallInFlight = {
  runId: RUN,
  stepId: "s1",
  attempt: 1,
  callId: "call_wait",
  tool: "run_command",
  index: 0,
  startedAt: new Date().toISOString(),
  args: { command: "npm", args: ["test"] },
  progress: { progress: 2, total: 5, message: "2 suites passed" },
};

/** The run page's calls in flight once it followed a stream of `events`. */
async function rowsAfter(events: LiveEvent[]): Promise<string[]> {
  const frames = [...events, END].map((event) => `event: live\ndata: ${JSON.stringify(event)}\n\n`).join("");
  const server = fakeApi({
    [`/runs/${RUN}`]: { goal: { text: "run the tests" }, status: "executing" },
    "/approvals": { approvals: [] },
    [`/runs/${RUN}/view`]: buildRunView({ runId: RUN, state: null, events: [], blobs: {} }, [running]),
    [`/runs/${RUN}/events`]: () => new Response(frames, { headers: { "content-type": "text/event-stream" } }),
  });
  const visit = visitDashboard(dashboardPage().html, server, `#${RUN}`);
  const detail = () => visit.element("detail");
  await visit.until(() => {
    const box = findNode(detail(), (node) => node.dataset.testid === "run-live");
    return box !== undefined && findNodes(box, (node) => node.dataset.key !== undefined).some((line) => line.textContent === END_TEXT);
  });
  return findNodes(detail(), (node) => node.dataset.testid === "call-in-flight").map((row) => row.textContent ?? "");
}

describe("the run page's calls in flight", () => {
  it("shows a call the view says is running, with its progress, and one the live channel says started", async () => {
    const rows = await rowsAfter([
      { type: "tool_started", ...source, callId: "call_read", tool: "read_file", index: 1, startedAt: new Date().toISOString() },
    ]);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatch(/^\[s1\] #0 run_command running for \d+ s — 2\/5: 2 suites passed$/);
    expect(rows[1]).toMatch(/^\[s1\] #1 read_file running for \d+ s$/);
  });

  it("takes a call away when the live channel says it ended", async () => {
    const rows = await rowsAfter([
      { type: "tool_finished", ...source, callId: "call_wait", tool: "run_command", index: 0, status: "ok", durationMs: 900 },
    ]);
    expect(rows).toEqual([]);
  });
});
