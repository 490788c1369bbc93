import { describe, expect, it } from "vitest";
import type { TraceEvent } from "@rein/contracts/run";
import { stepWorkAfterEnd } from "../../src/chaos/chaos-checks.ts";

const at = (seq: number, kind: string, second: number, stepId: string | null = "s2") =>
  ({
    schemaVersion: 1,
    seq,
    ts: `2026-12-04T14:00:${String(second).padStart(2, "0")}.000Z`,
    runId: "run_a",
    stepId,
    parentStepId: null,
    kind,
    payload: {},
  }) as unknown as TraceEvent;

describe("the chaos suite's check for step work after a run ended", () => {
  it("does not count a turn made before the end that was written after it, nor the record of the call the end cut off", () => {
    const events = [
      at(30, "run.escalated", 10, null),
      at(31, "model.called", 8),
      at(32, "tool.called", 9),
      at(33, "tool.result", 9),
      at(34, "tool.interrupted", 11),
    ];
    expect(stepWorkAfterEnd(events)).toEqual([]);
  });

  it("does not count a step taken in the moment its run ended that restored its checkpoint and called nothing", () => {
    const events = [at(40, "run.escalated", 10, null), at(41, "step.checkpoint_restored", 11), at(42, "step.cancelled", 11)];
    expect(stepWorkAfterEnd(events)).toEqual([]);
  });

  it("counts a model call or a tool call started after the run ended", () => {
    const events = [
      at(30, "run.cancelled", 10, null),
      at(31, "model.called", 12),
      at(32, "tool.called", 13),
      at(33, "tool.interrupted", 14),
    ];
    expect(stepWorkAfterEnd(events).map((event) => event.kind)).toEqual(["model.called", "tool.called"]);
  });
});
