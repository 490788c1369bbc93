import { describe, expect, it } from "vitest";
import type { TraceEvent } from "@rein/core";
import { describeEvent, type ProgressMemory } from "../src/cli/progress.ts";
import { fixtureEvents } from "./trace/fixture-events.ts";

const INTERNAL_NAME = /\b(run|plan|step|model|tool|approval|permission|verdict|packet|loop|observation|lesson|answer|sandbox)\.[a-z_]+\b/;

/** A call the runtime stopped before it ran, with every event it traces on the way to its result. */
function stoppedCall(callId: string, kinds: [string, Record<string, unknown>][]): TraceEvent[] {
  const base = { callId, index: 0, tool: "read_file" };
  const traced: [string, Record<string, unknown>][] = [["tool.called", { args: { path: "a" } }], ...kinds, ["tool.result", { name: "read_file", status: "refused", message: "not on this step's surface" }]];
  return traced.map(
    ([kind, payload], seq) => ({ schemaVersion: 1, seq, ts: new Date(0).toISOString(), runId: "run_w", stepId: "s1", parentStepId: null, kind, payload: { ...base, ...payload } }) as TraceEvent,
  );
}

describe("progress speaks to people", () => {
  it("prints no internal event name for any event of a run", () => {
    const memory: ProgressMemory = new Map();
    const extra = [
      ...stoppedCall("c7", [["tool.refused", { reason: "not_on_surface" }]]),
      ...stoppedCall("c8", [["tool.input_invalid", { issues: ["path: required"] }]]),
      ...stoppedCall("c9", [["tool.budget_exhausted", { reason: "calls" }]]),
      ...stoppedCall("c10", [["tool.cache_hit", { observedAt: "x" }]]),
      ...stoppedCall("c11", [["tool.replayed", { idempotencyKey: "k" }]]),
      ...stoppedCall("c12", [["approval.forged", { approvalId: "apr_9", problem: "bad signature" }]]),
      ...stoppedCall("c13", [["approval.unavailable", { rule: "r" }]]),
      ...stoppedCall("c14", [["tool.output_invalid", { issues: ["x"] }]]),
    ];
    const lines = [...fixtureEvents(), ...extra].map((event) => describeEvent(event, memory)).filter((line): line is string => line !== undefined);
    expect(lines.length).toBeGreaterThan(10);
    for (const line of lines) expect(line).not.toMatch(INTERNAL_NAME);
  });

  it("gives a call the runtime stopped one line, its result with the reason", () => {
    const lines = stoppedCall("c7", [["tool.refused", { reason: "not_on_surface" }]])
      .map((event) => describeEvent(event))
      .filter(Boolean);
    expect(lines).toEqual(['[s1]   ⚙ read_file({"path":"a"})', "[s1]     ↳ refused: not on this step's surface"]);
  });

  it("gives a denied call one result line with the rule and the reason, not a line of its own for the decision", () => {
    const memory: ProgressMemory = new Map();
    const denied = fixtureEvents().filter((event) => event.stepId === "s1" && event.payload.callId === "c1");
    expect(denied.map((event) => describeEvent(event, memory)).filter(Boolean)).toEqual(['[s1]   ⚙ run_command({"command":"rm"})', "[s1]     ↳ denied by goal:no-rm: never delete"]);
  });
});
