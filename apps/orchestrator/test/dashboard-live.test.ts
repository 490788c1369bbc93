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
});
