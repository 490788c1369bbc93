import { describe, expect, it } from "vitest";
import type { TypedTraceEvent } from "@rein/trace";
import { type TraceEnvelope, traceEventOf } from "@rein/runtime/testing";
import { describeEvent, type ProgressMemory } from "../src/cli/progress.ts";
import { fixtureEvents } from "./trace/fixture-events.ts";

const INTERNAL_NAME = /\b(run|plan|step|model|tool|approval|permission|verdict|packet|loop|observation|lesson|answer|sandbox)\.[a-z_]+\b/;

type CallBase = { callId: string; index: number; tool: string };

/** A call the runtime stopped before it ran, with every event it traces on the way to its result. */
function stoppedCall(callId: string, stop: (base: CallBase, at: TraceEnvelope) => TypedTraceEvent): TypedTraceEvent[] {
  const base = { callId, index: 0, tool: "read_file" };
  const at = (seq: number): TraceEnvelope => ({ seq, runId: "run_w", stepId: "s1" });
  return [
    traceEventOf("tool.called", { ...base, idempotencyKey: `run_w:s1:1:${callId}`, argBytes: 12, args: { path: "a" } }, at(1)),
    stop(base, at(2)),
    traceEventOf(
      "tool.result",
      { ...base, name: "read_file", status: "refused", durationMs: 0, attempts: 0, message: "not on this step's surface" },
      at(3),
    ),
  ];
}

const approvalFields = { approvalId: "apr_9", actionHash: `sha256:${"9".repeat(64)}`, status: "pending", rule: "default:external" };

describe("progress speaks to people", () => {
  it("prints no internal event name for any event of a run", () => {
    const memory: ProgressMemory = new Map();
    const extra = [
      ...stoppedCall("c7", (base, at) => traceEventOf("tool.refused", { ...base, reason: "not_on_surface" }, at)),
      ...stoppedCall("c8", (base, at) =>
        traceEventOf(
          "tool.input_invalid",
          { ...base, reason: "invalid_input", issues: [{ path: ["path"], code: "invalid_type", message: "required" }] },
          at,
        ),
      ),
      ...stoppedCall("c9", (base, at) =>
        traceEventOf("tool.budget_exhausted", { ...base, reason: "calls", callsSoFar: 8, maxToolCalls: 8 }, at),
      ),
      ...stoppedCall("c10", (base, at) => traceEventOf("tool.cache_hit", { ...base, observedAt: "x" }, at)),
      ...stoppedCall("c11", (base, at) => traceEventOf("tool.replayed", { ...base, idempotencyKey: "k", observedAt: "x" }, at)),
      ...stoppedCall("c12", (base, at) => traceEventOf("approval.forged", { ...base, ...approvalFields, problem: "bad signature" }, at)),
      ...stoppedCall("c13", (base, at) => traceEventOf("approval.unavailable", { ...base, rule: "r" }, at)),
      ...stoppedCall("c14", (base, at) => traceEventOf("tool.output_invalid", { ...base, issues: "x" }, at)),
    ];
    const lines = [...fixtureEvents(), ...extra]
      .map((event) => describeEvent(event, memory))
      .filter((line): line is string => line !== undefined);
    expect(lines.length).toBeGreaterThan(10);
    for (const line of lines) expect(line).not.toMatch(INTERNAL_NAME);
  });

  it("gives a call the runtime stopped one line, its result with the reason", () => {
    const lines = stoppedCall("c7", (base, at) => traceEventOf("tool.refused", { ...base, reason: "not_on_surface" }, at))
      .map((event) => describeEvent(event))
      .filter(Boolean);
    expect(lines).toEqual(['[s1]   ⚙ read_file({"path":"a"})', "[s1]     ↳ refused in 0 ms: not on this step's surface"]);
  });

  it("gives a denied call one result line with the rule and the reason, not a line of its own for the decision", () => {
    const memory: ProgressMemory = new Map();
    const denied = fixtureEvents().filter((event) => event.stepId === "s1" && "callId" in event.payload && event.payload.callId === "c1");
    expect(denied.map((event) => describeEvent(event, memory)).filter(Boolean)).toEqual([
      '[s1]   ⚙ run_command({"command":"rm"})',
      "[s1]     ↳ denied by goal:no-rm: never delete",
    ]);
  });
});
