import type { TraceEvent } from "@rein/core";
import { describe, expect, it } from "vitest";
import { describeEvent, type ProgressMemory } from "../src/cli/progress.ts";

let seq = 0;
const event = (kind: string, payload: Record<string, unknown>): TraceEvent =>
  ({ seq: ++seq, ts: new Date(0).toISOString(), runId: "run_p", stepId: "s1", kind, payload }) as TraceEvent;

/** The progress lines one command call prints, as `rein run` prints them. */
function linesFor(callId: string, output: string): string[] {
  const memory: ProgressMemory = new Map();
  return [
    event("tool.called", { callId, tool: "run_command", args: { command: "node", args: ["--test"] } }),
    event("tool.executed", { callId, tool: "run_command", status: "ok", attempts: 1, output }),
    event("tool.result", { callId, name: "run_command", status: "ok", durationMs: 309.4 }),
  ]
    .map((item) => describeEvent(item, memory))
    .filter((line): line is string => line !== undefined);
}

describe("progress lines for a tool call", () => {
  it("shows a command that exited non-zero as `exit 1`, on the call's one result line", () => {
    expect(linesFor("c1", "exit code: 1\n--- stdout ---\nnot ok 1\n--- stderr ---\n")).toEqual([
      '[s1]   ⚙ run_command({"command":"node","args":["--test"]})',
      "[s1]     ↳ exit 1 in 309 ms",
    ]);
  });

  it("shows a clean exit as ok and a killed command by its signal", () => {
    expect(linesFor("c2", "exit code: 0\n--- stdout ---\nok\n").at(-1)).toBe("[s1]     ↳ ok in 309 ms");
    expect(linesFor("c3", "exit code: none (killed by SIGKILL after timeout)\n").at(-1)).toBe("[s1]     ↳ killed by SIGKILL in 309 ms");
  });
});
