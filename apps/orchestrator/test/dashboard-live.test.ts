import { describe, expect, it } from "vitest";
import type { LiveEvent } from "@rein/runtime";
import { dashboardPage } from "../src/api/dashboard/dashboard-page.ts";
import { buildRunView } from "../src/trace/views/run-view/build-run-view.ts";
import { fakeApi, findNode, findNodes, visitDashboard } from "./support/dashboard-browser.ts";

const RUN = "run_live";
const END_TEXT = "(end of test)";
/** Sent last: once its line shows, the page has read every event before it (one stream, read in order). */
const END: LiveEvent = { type: "text_delta", runId: RUN, stepId: null, role: "evaluator", text: END_TEXT };

/** The lines of the run page's live box after the page's own script followed a trace stream of `events`. */
async function liveLines(events: LiveEvent[]): Promise<string> {
  const frames = [...events, END].map((event) => `event: live\ndata: ${JSON.stringify(event)}\n\n`).join("");
  const server = fakeApi({
    [`/runs/${RUN}`]: { goal: { text: "fix the failing test" }, status: "executing" },
    "/approvals": { approvals: [] },
    [`/runs/${RUN}/view`]: buildRunView({ runId: RUN, state: null, events: [], blobs: {} }),
    [`/runs/${RUN}/events`]: () => new Response(frames, { headers: { "content-type": "text/event-stream" } }),
  });
  const visit = visitDashboard(dashboardPage().html, server, `#${RUN}`);
  const lines = () => {
    const box = findNode(visit.element("detail"), (node) => node.dataset.testid === "run-live");
    return box ? findNodes(box, (node) => node.dataset.key !== undefined).map((line) => line.textContent) : [];
  };
  await visit.until(() => lines().includes(END_TEXT));
  return lines()
    .filter((line) => line !== END_TEXT)
    .join("|");
}

describe("the dashboard's live output", () => {
  const source = { runId: RUN, stepId: "s1", role: "worker" } as const;

  it("shows streamed text, and nothing for a model call's start and end", async () => {
    const text = await liveLines([
      { type: "call_started", ...source },
      { type: "text_delta", ...source, text: "Reading " },
      { type: "text_delta", ...source, text: "the test" },
      { type: "call_finished", ...source, durationMs: 1200 },
    ]);
    expect(text).toBe("Reading the test");
  });

  it("shows thinking between tool calls on its own line, and a retry voids it with the text", async () => {
    const thought = await liveLines([
      { type: "thinking_delta", ...source, text: "The test fails on " },
      { type: "thinking_delta", ...source, text: "an off-by-one." },
      { type: "text_delta", ...source, text: "Fixed." },
    ]);
    expect(thought).toBe("The test fails on an off-by-one.|Fixed.");
    const retried = await liveLines([
      { type: "thinking_delta", ...source, text: "half a thought" },
      { type: "retry", ...source, attempt: 1, reason: "overloaded", delayMs: 100 },
    ]);
    expect(retried).not.toContain("half a thought");
    expect(retried).toContain("partial output discarded");
  });
});
