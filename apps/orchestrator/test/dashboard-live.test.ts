import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { DASHBOARD_HTML } from "../src/api/dashboard/dashboard-page.ts";

/** The dashboard's live box after the page's own showLive() saw `events`. */
function liveText(events: Record<string, unknown>[]): string {
  const script = /<script>([\s\S]*)<\/script>/.exec(DASHBOARD_HTML)?.[1] as string;
  const page: Record<string, unknown> = {
    document: { getElementById: () => ({ addEventListener() {}, replaceChildren() {}, append() {}, textContent: "", value: "" }), createElement: () => ({ dataset: {}, textContent: "", append() {}, replaceChildren() {} }), querySelectorAll: () => [] },
    sessionStorage: { getItem: () => null, setItem() {} },
    history: { replaceState() {} },
    location: { hash: "", pathname: "/" },
    fetch: () => new Promise(() => {}),
    setInterval: () => 0,
    CSS: { escape: (text: string) => text },
  };
  runInNewContext(script, page);
  const rows: { textContent: string; dataset: Record<string, string> }[] = [];
  const box = {
    querySelector: (selector: string) => rows.find((row) => selector.includes(`"${row.dataset.key}"`)) ?? null,
    append: (row: { textContent: string; dataset: Record<string, string> }) => rows.push(row),
  };
  for (const event of events) (page.showLive as (box: unknown, event: unknown) => void)(box, event);
  return rows.map((row) => row.textContent).join("|");
}

describe("the dashboard's live output", () => {
  const source = { runId: "run_1", stepId: "s1", role: "worker" };

  it("shows streamed text, and nothing for a model call's start and end", () => {
    const text = liveText([
      { type: "call_started", ...source },
      { type: "text_delta", ...source, text: "Reading " },
      { type: "text_delta", ...source, text: "the test" },
      { type: "call_finished", ...source, durationMs: 1200 },
    ]);
    expect(text).toBe("Reading the test");
  });

  it("shows thinking between tool calls on its own line, and a retry voids it with the text", () => {
    const thought = liveText([
      { type: "thinking_delta", ...source, text: "The test fails on " },
      { type: "thinking_delta", ...source, text: "an off-by-one." },
      { type: "text_delta", ...source, text: "Fixed." },
    ]);
    expect(thought).toBe("The test fails on an off-by-one.|Fixed.");
    const retried = liveText([
      { type: "thinking_delta", ...source, text: "half a thought" },
      { type: "retry", ...source, attempt: 1, reason: "overloaded", delayMs: 100 },
    ]);
    expect(retried).not.toContain("half a thought");
    expect(retried).toContain("partial output discarded");
  });
});
