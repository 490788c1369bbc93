import type { TraceKind, TracePayloadInput, TypedTraceEvent } from "@rein/trace";
import { traceEventOf } from "@rein/runtime/testing";
import { describe, expect, it } from "vitest";
import { buildRunView } from "../../src/trace/views/run-view/build-run-view.ts";

let seq = 0;
const event = <Kind extends TraceKind>(kind: Kind, payload: TracePayloadInput<Kind>, stepId: string | null = null): TypedTraceEvent =>
  traceEventOf(kind, payload, { seq: ++seq, runId: "run_g", stepId, ts: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, seq * 100)).toISOString() });
const dispatched = (stepId: string, title: string) =>
  event(
    "step.dispatched",
    {
      title,
      tools: [],
      attempt: 1,
      resume: 0,
      depth: 0,
      packetHash: `sha256:${"d".repeat(64)}`,
      packet: {},
      scopes: {},
      evidence: [],
      feedback: null,
    },
    stepId,
  );

/** A planned step, then a plan's group of three (the third cancelled by the join), then the step that reads their results. */
function groupRun(): TypedTraceEvent[] {
  return [
    dispatched("s0", "Find the sources"),
    event("group.started", { groupId: "g1", parentStepId: null, stepIds: ["s1", "s2", "s3"], join: { rule: "quorum", n: 2 }, slices: [] }),
    dispatched("s1", "Read eu"),
    dispatched("s2", "Read us"),
    dispatched("s3", "Read ap"),
    event("group.joined", {
      groupId: "g1",
      outcome: "joined",
      inputs: [
        { stepId: "s1", phase: "completed", decision: "continue" },
        { stepId: "s2", phase: "completed", decision: "continue" },
        { stepId: "s3", phase: "cancelled", decision: null },
      ],
      cancelled: ["s3"],
    }),
    dispatched("s4", "Compare"),
  ];
}

describe("the run view's step graph with a parallel group", () => {
  const view = buildRunView({ runId: "run_g", state: null, events: groupRun(), blobs: {} });

  it("has each member follow the step before the group and the step after it follow every member, not one member another", () => {
    expect(view.graph.edges).toEqual([
      { from: "s0", to: "s1", kind: "next" },
      { from: "s0", to: "s2", kind: "next" },
      { from: "s0", to: "s3", kind: "next" },
      { from: "s1", to: "s4", kind: "next" },
      { from: "s2", to: "s4", kind: "next" },
      { from: "s3", to: "s4", kind: "next" },
    ]);
  });

  it("lists the group with its members in the order asked, its join rule and outcome, and whom it cancelled", () => {
    expect(view.graph.groups).toEqual([
      { groupId: "g1", parentStepId: null, stepIds: ["s1", "s2", "s3"], join: "quorum 2", outcome: "joined", cancelled: ["s3"] },
    ]);
  });
});
