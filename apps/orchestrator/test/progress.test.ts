import type { TraceKind, TracePayloadInput, TypedTraceEvent } from "@rein/trace";
import { traceEventOf } from "@rein/runtime/testing";
import { describe, expect, it } from "vitest";
import { describeEvent, describeLiveCall, type ProgressMemory } from "../src/cli/progress.ts";

let seq = 0;
const event = <Kind extends TraceKind>(kind: Kind, payload: TracePayloadInput<Kind>): TypedTraceEvent =>
  traceEventOf(kind, payload, { seq: ++seq, runId: "run_p", stepId: "s1" });

/** The progress lines one command call prints, as `rein run` prints them. */
function linesFor(callId: string, output: string): string[] {
  const memory: ProgressMemory = new Map();
  return [
    event("tool.called", {
      callId,
      index: 0,
      tool: "run_command",
      idempotencyKey: `run_p:s1:1:${callId}`,
      argBytes: 36,
      args: { command: "node", args: ["--test"] },
    }),
    event("tool.executed", { callId, index: 0, tool: "run_command", status: "ok", attempts: 1, output }),
    event("tool.result", { callId, index: 0, tool: "run_command", name: "run_command", status: "ok", durationMs: 309.4, attempts: 1 }),
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

describe("progress lines for a run", () => {
  it("says which jobs lost from their queues were sent again, and why", () => {
    const redriven = event("run.redriven", {
      cause: "vanished",
      reason: "not in its queue",
      jobs: [{ key: "plan 2", queue: "plan", jobId: "plan-run_p-2", resend: 1 }],
    });
    expect(describeEvent(redriven, new Map())).toBe("↻ lost and sent again: plan 2 (not in its queue)");
  });
});

describe("a step's start and its calls as rein run and rein trace --follow show them (issue 32.6)", () => {
  const dispatched = () =>
    event("step.dispatched", {
      title: "Run the tests",
      attempt: 1,
      resume: 0,
      depth: 0,
      packetHash: "sha256:0",
      packet: {},
      tools: ["run_command"],
      scopes: {},
      evidence: [],
      feedback: null,
    });
  const called = (callId: string) =>
    event("tool.called", { callId, index: 0, tool: "run_command", idempotencyKey: "run_p:s1:1:0", argBytes: 2, args: { command: "npm" } });
  const result = (callId: string) =>
    event("tool.result", { callId, index: 0, tool: "run_command", name: "run_command", status: "ok", durationMs: 12, attempts: 1 });
  // step.started is written with the step's result, after its calls: the order the trace holds them in.
  const stored = (callId: string) => [
    dispatched(),
    called(callId),
    result(callId),
    event("step.started", { attempt: 1 }),
    event("step.finished", { status: "completed", attempt: 1, turns: 2, observations: [], error: null }),
  ];

  it("shows `started` once, before the step's first call, though step.started comes after its calls", () => {
    const memory: ProgressMemory = new Map();
    const lines = stored("c1")
      .map((item) => describeEvent(item, memory))
      .filter(Boolean)
      .join("\n")
      .split("\n");
    expect(lines).toEqual([
      '[s1] → dispatched "Run the tests" (attempt 1) tools: run_command',
      "[s1]   started",
      '[s1]   ⚙ run_command({"command":"npm"})',
      "[s1]     ↳ ok in 12 ms",
      "[s1] ■ step completed after 2 turn(s)",
    ]);
  });

  it("shows a call when the live channel says it started, and its progress, and not again when its durable copy arrives", () => {
    const memory: ProgressMemory = new Map();
    const source = { runId: "run_p", stepId: "s1", role: "worker" as const, callId: "c1", tool: "run_command", index: 0 };
    const [first, ...rest] = stored("c1");
    const lines = [
      describeEvent(first as TypedTraceEvent, memory),
      describeLiveCall({ type: "tool_started", ...source, startedAt: "2026-01-01T00:00:00.000Z", args: { command: "npm" } }, memory),
      describeLiveCall({ type: "tool_progress", ...source, progress: 3, total: 10, message: "3 suites" }, memory),
      ...rest.map((item) => describeEvent(item, memory)),
    ]
      .filter(Boolean)
      .join("\n")
      .split("\n");
    expect(lines).toEqual([
      '[s1] → dispatched "Run the tests" (attempt 1) tools: run_command',
      "[s1]   started",
      '[s1]   ⚙ run_command({"command":"npm"})',
      "[s1]     … run_command 3/10: 3 suites",
      "[s1]     ↳ ok in 12 ms",
      "[s1] ■ step completed after 2 turn(s)",
    ]);
  });
});
