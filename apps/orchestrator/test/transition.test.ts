import { describe, expect, it } from "vitest";
import { type ControlEvent, Goal, hashOf, type RunState, type RunStatus, type StepResult, StepSpec, type Verdict, zeroUsage } from "@rein/core";
import { transition } from "../src/controller/transition.ts";
import { newRunState } from "../src/intake/submit-goal.ts";

const now = new Date("2026-11-30T00:00:00.000Z");
const settings = { now, packetTtlMs: 60_000, approvalTtlMs: 3_600_000 };
const spec = StepSpec.parse({ title: "Fix add()", objective: "Change src/add.js so add returns a sum", tools: ["read_file"] });

function baseState(overrides: Partial<RunState> = {}): RunState {
  const goal = Goal.parse({ text: "Fix the bug", tools: [{ name: "read_file" }, { name: "run_command" }] });
  return { ...newRunState(goal, "run_t", now.toISOString()), version: 3, planCount: 1, ...overrides };
}

const step = (phase: RunState["steps"][number]["phase"], extra: Partial<RunState["steps"][number]> = {}) => ({
  stepId: "s1",
  spec,
  attempt: 1,
  phase,
  parentStepId: null,
  depth: 0,
  usage: zeroUsage(),
  resumes: 0,
  attemptFingerprints: [],
  ...extra,
});

const result = (status: StepResult["status"], extra: Partial<StepResult> = {}): StepResult => ({
  schemaVersion: 1,
  runId: "run_t",
  stepId: "s1",
  attempt: 1,
  status,
  output: "ok",
  summary: "did it",
  claims: [],
  observations: [],
  toolCalls: [],
  fingerprints: [hashOf("a")],
  usage: { ...zeroUsage(), inputTokens: 10, outputTokens: 5 },
  turns: 2,
  ...extra,
});

const verdict = (decision: Verdict["decision"]): Verdict => ({
  schemaVersion: 1,
  runId: "run_t",
  stepId: "s1",
  attempt: 1,
  decision,
  reasons: [`because ${decision}`],
  feedback: decision === "retry" ? "change strategy" : undefined,
  checks: [],
});

const e = <T extends ControlEvent["type"]>(type: T, fields: Record<string, unknown> = {}) =>
  ({ type, eventId: `ev-${type}`, runId: "run_t", ...fields }) as Extract<ControlEvent, { type: T }>;

interface Row {
  from: RunStatus;
  state?: Partial<RunState>;
  event: ControlEvent;
  to: RunStatus;
  effects: string[];
}

const planned = { done: false, current_step: spec, next_steps: ["Verify"], risks: [] };

const rows: Row[] = [
  { from: "planning", state: { planCount: 0 }, event: e("goal.submitted"), to: "planning", effects: ["prepare_workspace", "schedule_deadline", "enqueue_plan"] },
  { from: "planning", event: e("plan.ready", { planNo: 1, plan: planned, usage: zeroUsage(), lessonsUsed: [] }), to: "dispatching", effects: ["dispatch_step"] },
  {
    from: "planning",
    event: e("plan.ready", { planNo: 1, plan: { done: true, current_step: null, next_steps: [], risks: [], answer: { answer: "fixed", claims: [], gaps: [] } }, usage: zeroUsage(), lessonsUsed: [] }),
    to: "done",
    effects: [],
  },
  { from: "planning", event: e("plan.failed", { planNo: 1, reason: "invalid output 3 times" }), to: "failed", effects: ["record_lesson"] },
  { from: "dispatching", state: { steps: [step("dispatched")] }, event: e("step.started", { stepId: "s1", attempt: 1 }), to: "executing", effects: [] },
  { from: "executing", state: { steps: [step("executing")] }, event: e("step.finished", { stepId: "s1", attempt: 1, result: result("completed") }), to: "evaluating", effects: ["enqueue_evaluate"] },
  {
    from: "executing",
    state: { steps: [step("executing")] },
    event: e("step.finished", { stepId: "s1", attempt: 1, result: result("needs_approval", { suspension: { kind: "approval", approvalId: "apr_1", tool: "restart_service" } }) }),
    to: "waiting_approval",
    effects: ["schedule_approval_expiry"],
  },
  { from: "executing", state: { steps: [step("executing")] }, event: e("step.errored", { stepId: "s1", attempt: 1, reason: "packet refused" }), to: "failed", effects: ["record_lesson"] },
  { from: "evaluating", state: { steps: [step("evaluating")] }, event: e("verdict.ready", { stepId: "s1", attempt: 1, verdict: verdict("continue") }), to: "planning", effects: ["enqueue_plan"] },
  { from: "evaluating", state: { steps: [step("evaluating")] }, event: e("verdict.ready", { stepId: "s1", attempt: 1, verdict: verdict("retry") }), to: "dispatching", effects: ["dispatch_step"] },
  { from: "evaluating", state: { steps: [step("evaluating")] }, event: e("verdict.ready", { stepId: "s1", attempt: 1, verdict: verdict("replan") }), to: "planning", effects: ["enqueue_plan"] },
  { from: "evaluating", state: { steps: [step("evaluating")] }, event: e("verdict.ready", { stepId: "s1", attempt: 1, verdict: verdict("escalate") }), to: "escalated", effects: [] },
  { from: "evaluating", state: { steps: [step("evaluating")] }, event: e("verdict.ready", { stepId: "s1", attempt: 1, verdict: verdict("done") }), to: "done", effects: [] },
  { from: "evaluating", state: { steps: [step("evaluating")] }, event: e("verdict.ready", { stepId: "s1", attempt: 1, verdict: verdict("fail") }), to: "failed", effects: ["record_lesson"] },
  {
    from: "waiting_approval",
    state: { steps: [step("suspended", { awaitingApprovalId: "apr_1" })], pendingApprovals: ["apr_1"] },
    event: e("approval.decided", { approvalId: "apr_1", decision: "approved" }),
    to: "dispatching",
    effects: ["dispatch_step"],
  },
  { from: "escalated", event: e("run.resume", { instruction: "use the staging database" }), to: "planning", effects: ["enqueue_plan"] },
  { from: "executing", state: { steps: [step("executing")] }, event: e("run.cancel", { reason: "not needed" }), to: "cancelled", effects: [] },
  { from: "executing", state: { createdAt: "2026-11-29T00:00:00.000Z", steps: [step("executing")] }, event: e("deadline"), to: "failed", effects: ["record_lesson"] },
];

describe("transition", () => {
  for (const row of rows) {
    it(`${row.from} + ${row.event.type}${row.event.type === "verdict.ready" ? `(${row.event.verdict.decision})` : ""} → ${row.to}`, () => {
      const state = baseState({ status: row.from, ...row.state });
      const next = transition(state, row.event, settings);
      expect(next.applied).toBe(true);
      expect(next.state.status).toBe(row.to);
      expect(next.effects.map((effect) => effect.type)).toEqual(row.effects);
      expect(next.state.version).toBe(state.version + 1);
      expect(next.state.outbox).toEqual(next.effects);
      expect(next.state.appliedEvents.at(-1)).toBe(row.event.eventId);
    });
  }

  for (const terminal of ["done", "failed", "cancelled"] as const) {
    it(`ignores every event once the run is ${terminal}`, () => {
      const state = baseState({ status: terminal, steps: [step("completed")] });
      const next = transition(state, e("run.cancel", { reason: "late" }), settings);
      expect(next.applied).toBe(false);
      expect(next.state).toBe(state);
      expect(next.trace[0]?.kind).toBe("event.ignored");
    });
  }

  it("ignores a redelivered event", () => {
    const state = baseState({ status: "executing", steps: [step("executing")], appliedEvents: ["ev-step.finished"] });
    const next = transition(state, e("step.finished", { stepId: "s1", attempt: 1, result: result("completed") }), settings);
    expect(next.applied).toBe(false);
  });

  it("ignores a result from an older attempt", () => {
    const state = baseState({ status: "executing", steps: [step("executing", { attempt: 2 })] });
    const next = transition(state, e("step.finished", { stepId: "s1", attempt: 1, result: result("completed") }), settings);
    expect(next.applied).toBe(false);
  });

  it("does not change the state it was given", () => {
    const state = baseState({ status: "evaluating", steps: [step("evaluating")] });
    const before = structuredClone(state);
    transition(state, e("verdict.ready", { stepId: "s1", attempt: 1, verdict: verdict("retry") }), settings);
    expect(state).toEqual(before);
  });

  it("hands the step only the granted tools it asked for, and the evidence it chose", () => {
    const state = baseState({
      evidence: [
        { id: "obs_a", stepId: "s0", tool: "read_file", summary: "a" },
        { id: "obs_b", stepId: "s0", tool: "read_file", summary: "b" },
      ],
    });
    const plan = { ...planned, current_step: { ...spec, evidence_ids: ["obs_b"] } };
    const next = transition(state, e("plan.ready", { planNo: 1, plan, usage: zeroUsage(), lessonsUsed: [] }), settings);
    const effect = next.effects[0];
    expect(effect?.type).toBe("dispatch_step");
    if (effect?.type !== "dispatch_step") return;
    expect(effect.body.surface.map((grant) => grant.name)).toEqual(["read_file"]);
    expect(effect.body.evidence.map((entry) => entry.id)).toEqual(["obs_b"]);
    expect(effect.jobId).toBe("step-run_t-s1-1");
  });

  it("retries with the evaluator's feedback in the next packet and a new job id", () => {
    const state = baseState({ status: "evaluating", steps: [step("evaluating")] });
    const next = transition(state, e("verdict.ready", { stepId: "s1", attempt: 1, verdict: verdict("retry") }), settings);
    const effect = next.effects[0];
    if (effect?.type !== "dispatch_step") throw new Error("expected a dispatch");
    expect(effect.body.attempt).toBe(2);
    expect(effect.body.task.feedback).toBe("change strategy");
    expect(effect.jobId).toBe("step-run_t-s1-2");
  });

  it("stops with a partial result when the step budget is spent instead of dispatching", () => {
    const state = baseState({ goal: Goal.parse({ text: "x", budget: { maxSteps: 1 } }), spent: { steps: 1, tokens: 0, costUsd: 0 } });
    const next = transition(state, e("plan.ready", { planNo: 1, plan: planned, usage: zeroUsage(), lessonsUsed: [] }), settings);
    expect(next.state.status).toBe("failed");
    expect(next.effects.map((effect) => effect.type)).toEqual(["record_lesson"]);
    expect(next.state.result?.partial).toBe(true);
    expect(next.state.stopReason).toMatch(/step budget spent: 1 of 1/);
    expect(next.state.result?.missing.join(" ")).toMatch(/Verify/);
  });

  it("counts tokens a step spent against the run's token budget", () => {
    const state = baseState({ status: "executing", goal: Goal.parse({ text: "x", budget: { maxTokens: 10 } }), steps: [step("executing")] });
    const finished = transition(state, e("step.finished", { stepId: "s1", attempt: 1, result: result("completed") }), settings);
    expect(finished.state.spent.tokens).toBe(15);
    const verdictEvent = { ...e("verdict.ready", { stepId: "s1", attempt: 1, verdict: verdict("continue") }) };
    const next = transition(finished.state, verdictEvent, settings);
    expect(next.state.status).toBe("failed");
    expect(next.state.stopReason).toMatch(/token budget/);
  });
});
