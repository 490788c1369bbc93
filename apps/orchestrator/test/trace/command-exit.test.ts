import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import type { TraceEvent } from "@rein/core";
import { DASHBOARD_HTML } from "../../src/api/dashboard/dashboard-page.ts";
import { renderTimeline } from "../../src/trace/views/timeline-view.ts";

let seq = 0;
const at = (kind: string, payload: Record<string, unknown>, extra: Partial<TraceEvent> = {}): TraceEvent => {
  seq += 1;
  return { schemaVersion: 1, seq, ts: new Date(Date.UTC(2026, 0, 1, 0, 0, seq)).toISOString(), runId: "run_exit", stepId: "s1", parentStepId: null, kind, payload, ...extra };
};

/** One run_command call as the executor traces it: called, executed (with its exit), result. */
function commandCall(callId: string, index: number, executed: Record<string, unknown>): TraceEvent[] {
  const base = { callId, index, tool: "run_command" };
  return [
    at("tool.called", { ...base, args: { command: "node", args: ["--test"] } }),
    at("tool.executed", { ...base, status: "ok", ...executed }),
    at("tool.result", { ...base, name: "run_command", status: "ok", durationMs: 812 }, { durationMs: 812 }),
  ];
}

const failing = commandCall("call_1", 0, { exitCode: 1, killedBy: null, output: "exit code: 1\n--- stdout ---\nnot ok 1\n" });
const killed = commandCall("call_2", 1, { exitCode: null, killedBy: "SIGKILL", output: "exit code: none (killed by SIGKILL after timeout)\n" });
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
  // The page's own script, run with nothing to talk to: its line() is what the run page prints per event.
  const script = /<script>([\s\S]*)<\/script>/.exec(DASHBOARD_HTML)?.[1] as string;
  const page: Record<string, unknown> = {
    document: { getElementById: () => ({ addEventListener() {}, replaceChildren() {}, append() {}, textContent: "", value: "" }), createElement: () => ({}), querySelectorAll: () => [] },
    sessionStorage: { getItem: () => null, setItem() {} },
    history: { replaceState() {} },
    location: { hash: "", pathname: "/" },
    fetch: () => new Promise(() => {}),
    setInterval: () => 0,
  };
  runInNewContext(script, page);
  const lines = (events: TraceEvent[]) => {
    const memory = new Map();
    return events.map((event) => (page.line as (event: TraceEvent, memory: Map<string, string>) => string | null)(event, memory)).filter(Boolean);
  };

  it("shows a non-zero exit as `exit N` on the call's result line", () => {
    expect(lines(failing).at(-1)).toBe("[s1]     -> exit 1 in 812 ms");
  });

  it("shows a killed command by its signal and a clean exit as ok", () => {
    expect(lines(killed).at(-1)).toBe("[s1]     -> killed by SIGKILL in 812 ms");
    expect(lines(passing).at(-1)).toBe("[s1]     -> ok in 812 ms");
  });
});
