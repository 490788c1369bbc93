import type { TraceKind, TracePayloadInput, TypedTraceEvent } from "@rein/trace";
import { traceEventOf } from "@rein/runtime/testing";
import { describe, expect, it } from "vitest";
import { describeEvent, type ProgressMemory } from "../src/cli/progress.ts";
import type { StepState, VerdictDecision } from "@rein/contracts/run";
import { baseState, step } from "@rein/controller/testing";
import { stepLines } from "../src/trace/views/group-lines.ts";
import { renderTimeline } from "../src/trace/views/timeline-view.ts";

let seq = 0;
const event = <Kind extends TraceKind>(kind: Kind, payload: TracePayloadInput<Kind>, stepId: string | null = null): TypedTraceEvent =>
  traceEventOf(kind, payload, { seq: ++seq, runId: "run_g", stepId });
const usage = (costUsd: number, inputTokens: number) => ({
  inputTokens,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  costUsd,
});

const slice = { maxTokens: 50_000, maxCostUsd: 0.5 };
/** A plan that fans out into three look-ups, one of which fails and cancels the third. */
function groupEvents(): TypedTraceEvent[] {
  return [
    event("plan.ready", { planNo: 1, done: false, currentStep: null, nextSteps: ["Join"], risks: [], lessonsUsed: [] }),
    event("group.started", {
      groupId: "g1",
      parentStepId: null,
      stepIds: ["s1", "s2", "s3"],
      join: { rule: "all" },
      slices: [slice, slice, slice],
    }),
    event("usage.counted", { source: "step", role: "worker", usage: usage(0.12, 1_200) }, "s1"),
    event("usage.counted", { source: "step", role: "worker", usage: usage(0.5, 48_000) }, "s2"),
    event("group.joined", {
      groupId: "g1",
      outcome: "failed",
      inputs: [
        { stepId: "s1", phase: "completed", decision: "continue" },
        { stepId: "s2", phase: "failed", decision: "replan" },
        { stepId: "s3", phase: "cancelled", decision: null },
      ],
      cancelled: ["s3"],
    }),
  ];
}

/** `rein run`'s lines for groupEvents. */
function linesOfGroup(): string[] {
  const memory: ProgressMemory = new Map();
  return groupEvents()
    .map((item) => describeEvent(item, memory))
    .filter((line): line is string => line !== undefined);
}

describe("progress lines for a parallel group", () => {
  it("says the plan fans out instead of naming a null step", () => {
    const [plan] = linesOfGroup();
    expect(plan).toBe("✓ plan: steps side by side (below); then: Join");
  });

  it("shows the group's members side by side with its join rule, and at the join each child's state and cost against its slice", () => {
    expect(linesOfGroup().slice(1)).toEqual([
      "⑂ group g1: s1 | s2 | s3 side by side, join all",
      [
        "⑃ group g1 failed (join all):",
        "    s1 completed (continue)  $0.1200 of $0.50, 1,200 of 50,000 tokens",
        "    s2 failed (replan)       $0.5000 of $0.50, 48,000 of 50,000 tokens",
        "    s3 cancelled             $0.0000 of $0.50, 0 of 50,000 tokens",
      ].join("\n"),
    ]);
  });
});

describe("rein trace for a parallel group", () => {
  it("shows the plan's group, its members side by side and the join with each child's state and cost against its slice", () => {
    const lines = renderTimeline(groupEvents())
      .split("\n")
      .map((line) => line.slice(11));
    expect(lines.slice(0, 6)).toEqual([
      "plan 1: steps side by side; then Join",
      "group g1: s1 | s2 | s3 side by side, join all",
      "group g1 failed (join all):",
      "    s1 completed (continue)  $0.1200 of $0.50, 1,200 of 50,000 tokens",
      "    s2 failed (replan)       $0.5000 of $0.50, 48,000 of 50,000 tokens",
      "    s3 cancelled             $0.0000 of $0.50, 0 of 50,000 tokens",
    ]);
  });
});

describe("rein status for a run with a parallel group", () => {
  it("lists the group's members together under it, each with its state, verdict and spend against its slice", () => {
    const spec = (title: string) => ({ ...step("completed").spec, title, budget: { maxTokens: 50_000, maxCostUsd: 0.5 } });
    const member = (stepId: string, phase: StepState["phase"], costUsd: number, inputTokens: number, decision?: VerdictDecision) =>
      step(phase, { stepId, spec: spec(`Look up ${stepId}`), groupId: "g1", usage: usage(costUsd, inputTokens), decision });
    const state = baseState({
      steps: [
        member("s1", "completed", 0.12, 1_200, "continue"),
        member("s2", "failed", 0.5, 48_000, "replan"),
        member("s3", "cancelled", 0, 0),
      ],
      groups: [{ groupId: "g1", parentStepId: null, stepIds: ["s1", "s2", "s3"], join: { rule: "all" }, phase: "failed" }],
    });
    state.steps.push(step("executing", { stepId: "s4", spec: spec("Join") }));
    expect(stepLines(state)).toEqual([
      "  group g1 failed (join all): s1 | s2 | s3 side by side",
      "    s1 [completed] attempt 1: Look up s1 → continue  $0.1200 of $0.50, 1,200 of 50,000 tokens",
      "    s2 [failed] attempt 1: Look up s2 → replan       $0.5000 of $0.50, 48,000 of 50,000 tokens",
      "    s3 [cancelled] attempt 1: Look up s3             $0.0000 of $0.50, 0 of 50,000 tokens",
      "  s4 [executing] attempt 1: Join",
    ]);
  });
});
