import { describe, expect, it } from "vitest";
import { Goal, hashOf, zeroUsage } from "@rein/contracts";
import type { RunState, RunStatus, Verdict } from "@rein/contracts/run";
import type { ControlEvent } from "@rein/contracts/messages";
import { transition } from "../src/transition/transition.ts";
import { baseState, event as e, now, planned, result, settings, spec, step, verdict } from "@rein/controller/testing";

interface Row {
  from: RunStatus;
  state?: Partial<RunState>;
  event: ControlEvent;
  to: RunStatus;
  effects: string[];
}

const rows: Row[] = [
  {
    from: "planning",
    state: { planCount: 0 },
    event: e("goal.submitted"),
    to: "planning",
    effects: ["prepare_workspace", "schedule_deadline", "enqueue_plan"],
  },
  {
    from: "planning",
    event: e("plan.ready", { planNo: 1, plan: planned, usage: zeroUsage(), lessonsUsed: [] }),
    to: "dispatching",
    effects: ["dispatch_step"],
  },
  {
    from: "planning",
    event: e("plan.ready", {
      planNo: 1,
      plan: { done: true, current_step: null, next_steps: [], risks: [], answer: { answer: "fixed", claims: [], gaps: [] } },
      usage: zeroUsage(),
      lessonsUsed: [],
    }),
    to: "evaluating",
    effects: ["enqueue_evaluate"],
  },
  {
    from: "planning",
    event: e("plan.failed", { planNo: 1, reason: "invalid output 3 times" }),
    to: "failed",
    // A planner that could not plan teaches nothing about the goal: no run_failed lesson for later plans.
    effects: ["retire_run"],
  },
  {
    from: "dispatching",
    state: { steps: [step("dispatched")] },
    event: e("step.started", { stepId: "s1", attempt: 1 }),
    to: "executing",
    effects: [],
  },
  {
    from: "executing",
    state: { steps: [step("executing")] },
    event: e("step.finished", { stepId: "s1", attempt: 1, result: result("completed") }),
    to: "evaluating",
    effects: ["enqueue_evaluate"],
  },
  {
    from: "executing",
    state: { steps: [step("executing")] },
    event: e("step.finished", {
      stepId: "s1",
      attempt: 1,
      result: result("needs_approval", { suspension: { kind: "approval", approvalId: "apr_1", tool: "restart_service" } }),
    }),
    to: "waiting_approval",
    effects: ["schedule_approval_expiry"],
  },
  {
    from: "executing",
    state: { steps: [step("executing")] },
    event: e("step.errored", { stepId: "s1", attempt: 1, reason: "packet refused" }),
    to: "failed",
    effects: ["record_lesson", "retire_run"],
  },
  {
    from: "executing",
    state: { steps: [step("executing")] },
    event: e("step.errored", {
      stepId: "s1",
      attempt: 1,
      reason: "its worker died or lost Redis 2 time(s) while running it",
      cause: "worker_lost",
    }),
    to: "dispatching",
    effects: ["dispatch_step"],
  },
  {
    from: "executing",
    state: { steps: [step("executing", { redispatches: 2, resumes: 2 })] },
    event: e("step.errored", {
      stepId: "s1",
      attempt: 1,
      reason: "its worker died or lost Redis 2 time(s) while running it",
      cause: "worker_lost",
    }),
    to: "escalated",
    effects: [],
  },
  {
    from: "evaluating",
    state: { steps: [step("evaluating")] },
    event: e("verdict.ready", { stepId: "s1", attempt: 1, verdict: verdict("continue") }),
    to: "planning",
    effects: ["enqueue_plan"],
  },
  {
    from: "evaluating",
    state: { steps: [step("evaluating")] },
    event: e("verdict.ready", { stepId: "s1", attempt: 1, verdict: verdict("retry") }),
    to: "dispatching",
    effects: ["dispatch_step"],
  },
  {
    from: "evaluating",
    state: { steps: [step("evaluating")] },
    event: e("verdict.ready", { stepId: "s1", attempt: 1, verdict: verdict("replan") }),
    to: "planning",
    effects: ["enqueue_plan"],
  },
  {
    from: "evaluating",
    state: { steps: [step("evaluating")] },
    event: e("verdict.ready", { stepId: "s1", attempt: 1, verdict: verdict("escalate") }),
    to: "escalated",
    effects: [],
  },
  {
    from: "evaluating",
    state: { steps: [step("evaluating")] },
    event: e("verdict.ready", { stepId: "s1", attempt: 1, verdict: verdict("done") }),
    to: "done",
    effects: ["retire_run"],
  },
  {
    from: "evaluating",
    state: { steps: [step("evaluating")] },
    event: e("verdict.ready", { stepId: "s1", attempt: 1, verdict: verdict("fail") }),
    to: "failed",
    effects: ["record_lesson", "retire_run"],
  },
  {
    from: "waiting_approval",
    state: { steps: [step("suspended", { awaitingApprovalId: "apr_1" })], pendingApprovals: ["apr_1"] },
    event: e("approval.decided", { approvalId: "apr_1", decision: "approved" }),
    to: "dispatching",
    effects: ["withdraw_approval_expiry", "dispatch_step"],
  },
  { from: "escalated", event: e("run.resume", { instruction: "use the staging database" }), to: "planning", effects: ["enqueue_plan"] },
  {
    from: "executing",
    state: { steps: [step("executing")] },
    event: e("run.cancel", { reason: "not needed" }),
    to: "cancelled",
    effects: ["retire_run"],
  },
  {
    from: "executing",
    state: { createdAt: "2026-11-29T00:00:00.000Z", steps: [step("executing")] },
    event: e("deadline"),
    to: "failed",
    effects: ["record_lesson", "retire_run"],
  },
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

  it("starts a new run under the controller's build, and leaves it unset when the controller has none", () => {
    const submitted = baseState({ status: "planning", planCount: 0 });
    expect(transition(submitted, e("goal.submitted"), { ...settings, buildId: "v2" }).state.build).toBe("v2");
    expect(transition(submitted, e("goal.submitted"), settings).state.build).toBeUndefined();
  });

  it("ignores a redelivered event", () => {
    const state = baseState({ status: "executing", steps: [step("executing")], appliedEvents: ["ev-step.finished"] });
    const next = transition(state, e("step.finished", { stepId: "s1", attempt: 1, result: result("completed") }), settings);
    expect(next.applied).toBe(false);
  });

  it("records the start a worker reports with its result, at the worker's time, before the result", () => {
    const state = baseState({ status: "dispatching", steps: [step("dispatched")] });
    const startedAt = "2026-11-30T11:59:58.000Z";
    const next = transition(state, e("step.finished", { stepId: "s1", attempt: 1, result: result("completed"), startedAt }), settings);
    expect(next.state.status).toBe("evaluating");
    const kinds = next.trace.map((event) =>
      event.kind === "run.status_changed"
        ? [event.kind, event.ts, event.payload.from, event.payload.to]
        : [event.kind, event.ts, null, null],
    );
    expect(kinds.slice(0, 3)).toEqual([
      ["run.status_changed", startedAt, "dispatching", "executing"],
      ["step.started", startedAt, null, null],
      ["run.status_changed", now.toISOString(), "executing", "evaluating"],
    ]);
    expect(kinds.at(-1)?.[0]).toBe("step.finished");
  });

  it("records no second start for a step whose start was reported on its own", () => {
    const state = baseState({ status: "executing", steps: [step("executing")] });
    const next = transition(
      state,
      e("step.finished", { stepId: "s1", attempt: 1, result: result("completed"), startedAt: "2026-11-30T11:59:58.000Z" }),
      settings,
    );
    expect(next.trace.filter((event) => event.kind === "step.started")).toEqual([]);
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
        { id: "obs_a", stepId: "s0", tool: "read_file", summary: "a", status: "ok" },
        { id: "obs_b", stepId: "s0", tool: "read_file", summary: "b", status: "ok" },
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

  it("dispatches a step whose workers were all lost again as a resumed attempt: same attempt, new job, not a new step", () => {
    const lost = e("step.errored", {
      stepId: "s1",
      attempt: 1,
      reason: "its worker died or lost Redis 11 time(s) while running it",
      cause: "worker_lost",
    });
    const state = baseState({ status: "executing", spent: { steps: 1, tokens: 0, costUsd: 0 }, steps: [step("executing")] });
    const next = transition(state, lost, settings);
    const effect = next.effects[0];
    if (effect?.type !== "dispatch_step") throw new Error("expected a dispatch");
    expect(effect.body.attempt).toBe(1);
    expect(effect.jobId).toBe("step-run_t-s1-1-r1");
    expect(next.state.spent.steps).toBe(1);
    expect(next.trace.find((event) => event.kind === "step.redispatched")?.payload).toMatchObject({ redispatch: 1, limit: 2 });
  });

  it("escalates, once its re-dispatches are spent, with what happened and what a person should do", () => {
    const lost = e("step.errored", {
      stepId: "s1",
      attempt: 1,
      reason: "its worker died or lost Redis 11 time(s) while running it",
      cause: "worker_lost",
    });
    let state = baseState({ status: "executing", steps: [step("executing")] });
    for (let redispatch = 1; redispatch <= settings.lostStepRedispatches; redispatch += 1) {
      state = transition(state, { ...lost, eventId: `lost-${redispatch}` }, settings).state;
      expect(state.status).toBe("dispatching");
    }
    const next = transition(state, { ...lost, eventId: "lost-last" }, settings);
    expect(next.state.status).toBe("escalated");
    expect(next.effects).toEqual([]);
    expect(next.state.stopReason).toMatch(/step s1 \(attempt 1\) was not finished: its worker died or lost Redis 11 time\(s\)/);
    expect(next.state.stopReason).toMatch(/after each of its 2 re-dispatch\(es\).*checkpoint is intact.*logs.*rein reply run_t/);
  });

  it("ignores a step's stall failure once its result was applied", () => {
    const state = baseState({ status: "evaluating", steps: [step("evaluating")] });
    const next = transition(state, e("step.errored", { stepId: "s1", attempt: 1, reason: "stalled", cause: "worker_lost" }), settings);
    expect(next.applied).toBe(false);
    expect(next.trace[0]?.payload).toMatchObject({ reason: "step is evaluating: its result was already applied" });
  });

  it("stops with a partial result when the step budget is spent instead of dispatching", () => {
    const state = baseState({ goal: Goal.parse({ text: "x", budget: { maxSteps: 1 } }), spent: { steps: 1, tokens: 0, costUsd: 0 } });
    const next = transition(state, e("plan.ready", { planNo: 1, plan: planned, usage: zeroUsage(), lessonsUsed: [] }), settings);
    expect(next.state.status).toBe("failed");
    expect(next.effects.map((effect) => effect.type)).toEqual(["record_lesson", "retire_run"]);
    expect(next.state.result?.partial).toBe(true);
    expect(next.state.stopReason).toMatch(/step budget spent: 1 of 1/);
    expect(next.state.result?.missing.join(" ")).toMatch(/Verify/);
  });

  it("counts tokens a step spent against the run's token budget", () => {
    const state = baseState({
      status: "executing",
      goal: Goal.parse({ text: "x", budget: { maxTokens: 10 } }),
      steps: [step("executing")],
    });
    const finished = transition(state, e("step.finished", { stepId: "s1", attempt: 1, result: result("completed") }), settings);
    expect(finished.state.spent.tokens).toBe(15);
    const verdictEvent = { ...e("verdict.ready", { stepId: "s1", attempt: 1, verdict: verdict("continue") }) };
    const next = transition(finished.state, verdictEvent, settings);
    expect(next.state.status).toBe("failed");
    expect(next.state.stopReason).toMatch(/token budget/);
  });
});

describe("transition: one ending, through the evaluator", () => {
  const answer = { answer: "add() subtracted; it now adds", claims: [{ text: "the tests pass", evidence: ["obs_0"] }], gaps: [] };
  const donePlan = { done: true, current_step: null, next_steps: [], risks: [], answer };
  // More evidence than any recent window, the cited id the oldest, one call failed.
  const evidence = Array.from({ length: 45 }, (_, index) => ({
    id: `obs_${index}`,
    stepId: "s1",
    tool: "run_command",
    summary: "exit code: 0",
    status: index === 44 ? ("error" as const) : ("ok" as const),
  }));
  const finalVerdict = (decision: Verdict["decision"], extra: Partial<Verdict> = {}): Verdict => ({
    schemaVersion: 1,
    runId: "run_t",
    stepId: "final",
    attempt: 1,
    decision,
    reasons: [`because ${decision}`],
    checks: [],
    ...extra,
  });
  const proposed = () =>
    transition(
      baseState({ status: "planning", evidence, steps: [step("completed")] }),
      e("plan.ready", { planNo: 1, plan: donePlan, usage: zeroUsage(), lessonsUsed: [] }),
      settings,
    );

  it("does not end the run on the planner's done: it sends the answer and all of the run's evidence to the evaluator", () => {
    const next = proposed();
    expect(next.state.status).toBe("evaluating");
    expect(next.state.result).toBeUndefined();
    const effect = next.effects[0];
    if (effect?.type !== "enqueue_evaluate" || effect.job.kind !== "final") throw new Error("expected a final-answer evaluation");
    expect(effect.job.answer).toEqual(answer);
    expect(effect.job.evidence).toHaveLength(45);
    expect(effect.job.evidence.at(-1)).toEqual({ id: "obs_44", stepId: "s1", tool: "run_command", status: "error" });
    expect(next.trace.map((event) => event.kind)).not.toContain("run.done");
  });

  it("ends done only on the evaluator's verdict over that answer, with the claims it checked", () => {
    const claims = [{ text: "the tests pass", evidence: ["obs_0"], status: "supported" as const }];
    const next = transition(
      proposed().state,
      e("verdict.ready", { stepId: "final", attempt: 1, verdict: finalVerdict("done", { claims }) }),
      settings,
    );
    expect(next.state.status).toBe("done");
    expect(next.state.stopReason).toBe("the evaluator verified the answer");
    expect(next.state.result?.answer).toEqual(answer);
    expect(next.state.result?.claims).toEqual(claims);
    expect(JSON.stringify(next.trace)).not.toContain("the planner found the goal met");
  });

  it("sends the planner back with the evaluator's feedback, and judges its next proposal against it", () => {
    const rejected = transition(
      proposed().state,
      e("verdict.ready", { stepId: "final", attempt: 1, verdict: finalVerdict("retry", { feedback: "unsupported claims: x" }) }),
      settings,
    );
    expect(rejected.state.status).toBe("planning");
    const plan = rejected.effects.find((effect) => effect.type === "enqueue_plan");
    if (plan?.type !== "enqueue_plan") throw new Error("expected a plan request");
    expect(plan.job.context.lastVerdict?.feedback).toBe("unsupported claims: x");
    const again = transition(
      rejected.state,
      { ...e("plan.ready", { planNo: 2, plan: donePlan, usage: zeroUsage(), lessonsUsed: [] }), eventId: "ev-plan-2" },
      settings,
    );
    const effect = again.effects[0];
    if (effect?.type !== "enqueue_evaluate" || effect.job.kind !== "final") throw new Error("expected a final-answer evaluation");
    expect(effect.job.attempt).toBe(2);
    expect(effect.job.feedback).toBe("unsupported claims: x");
    const stale = transition(
      again.state,
      { ...e("verdict.ready", { stepId: "final", attempt: 1, verdict: finalVerdict("done") }), eventId: "ev-stale" },
      settings,
    );
    expect(stale.applied).toBe(false);
  });

  it("escalates when the evaluator says the answer verifies nothing", () => {
    const next = transition(
      proposed().state,
      e("verdict.ready", { stepId: "final", attempt: 1, verdict: finalVerdict("escalate") }),
      settings,
    );
    expect(next.state.status).toBe("escalated");
  });

  it("hands the planner every evidence id as known, not only the recent window", () => {
    const next = transition(
      baseState({ status: "evaluating", evidence, steps: [step("evaluating")] }),
      e("verdict.ready", { stepId: "s1", attempt: 1, verdict: verdict("continue") }),
      settings,
    );
    const plan = next.effects.find((effect) => effect.type === "enqueue_plan");
    if (plan?.type !== "enqueue_plan") throw new Error("expected a plan request");
    expect(plan.job.context.knownEvidenceIds).toHaveLength(45);
  });

  it("records each observation's status with its evidence entry", () => {
    const observation = (id: string, status: "ok" | "error") => ({
      id,
      callId: `call_${id}`,
      tool: "run_command",
      status,
      content: "exit code: 1",
      empty: false,
      flags: [],
      provenance: {
        tool: "run_command",
        argsHash: hashOf(id),
        observedAt: now.toISOString(),
        cacheHit: false,
        replayed: false,
        trust: "tool" as const,
      },
    });
    const state = baseState({ status: "executing", steps: [step("executing")] });
    const next = transition(
      state,
      e("step.finished", {
        stepId: "s1",
        attempt: 1,
        result: result("completed", { observations: [observation("obs_x", "ok"), observation("obs_y", "error")] }),
      }),
      settings,
    );
    // The step's text output is evidence too, of what it wrote (issue 28 case 8), marked so that it backs no claim about the world.
    expect(next.state.evidence.map((entry) => [entry.id, entry.status, entry.source ?? "observation"])).toEqual([
      ["obs_x", "ok", "observation"],
      ["obs_y", "error", "observation"],
      ["out_s1_1", "ok", "output"],
    ]);
    const effect = next.effects[0];
    if (effect?.type !== "enqueue_evaluate" || effect.job.kind === "final") throw new Error("expected a step evaluation");
    expect(effect.job.evidence.map((fact) => [fact.status, fact.source ?? "observation"])).toEqual([
      ["ok", "observation"],
      ["error", "observation"],
      ["ok", "output"],
    ]);
    // An attempt the evaluator sends back produced nothing a claim may rest on; a passed one keeps its output.
    const retried = transition(next.state, e("verdict.ready", { stepId: "s1", attempt: 1, verdict: verdict("retry") }), settings);
    expect(retried.state.evidence.find((entry) => entry.id === "out_s1_1")?.status).toBe("error");
    const passed = transition(next.state, e("verdict.ready", { stepId: "s1", attempt: 1, verdict: verdict("continue") }), settings);
    expect(passed.state.evidence.find((entry) => entry.id === "out_s1_1")?.status).toBe("ok");
  });
});

describe("transition: a delegated child is judged before it returns", () => {
  const parent = step("suspended", { awaitingChildId: "s1.1" });
  const child = { ...step("executing"), stepId: "s1.1", parentStepId: "s1", depth: 1 };
  const childResult = result("completed", { stepId: "s1.1", summary: "found 3 errors" });
  const finished = () =>
    transition(
      baseState({ status: "executing", steps: [parent, child], plan: { ...planned, risks: ["a restart hides the cause"] } }),
      e("step.finished", { stepId: "s1.1", attempt: 1, result: childResult }),
      settings,
    );
  const childVerdict = (decision: Verdict["decision"]): Verdict => ({
    ...verdict(decision),
    stepId: "s1.1",
    reasons: [`child ${decision}`],
  });

  it("sends the child's result to the evaluator instead of straight to the parent", () => {
    const next = finished();
    expect(next.state.status).toBe("evaluating");
    expect(next.effects.map((effect) => effect.type)).toEqual(["enqueue_evaluate"]);
    const effect = next.effects[0];
    if (effect?.type !== "enqueue_evaluate" || effect.job.kind === "final") throw new Error("expected a step evaluation");
    expect(effect.job.kind).toBe("child");
    expect(effect.job.risks).toEqual([]);
    expect(next.state.steps.find((each) => each.stepId === "s1")?.phase).toBe("suspended");
  });

  it("returns a passing child to its parent", () => {
    const next = transition(
      finished().state,
      e("verdict.ready", { stepId: "s1.1", attempt: 1, verdict: childVerdict("continue") }),
      settings,
    );
    const effect = next.effects[0];
    if (effect?.type !== "dispatch_step") throw new Error("expected the parent's dispatch");
    expect(effect.body.stepId).toBe("s1");
    expect(effect.body.resume).toMatchObject({ kind: "delegation", childStepId: "s1.1", status: "completed", summary: "found 3 errors" });
  });

  it("returns a failing child to its parent as a failed delegation with the reasons, without escalating the run", () => {
    const next = transition(finished().state, e("verdict.ready", { stepId: "s1.1", attempt: 1, verdict: childVerdict("fail") }), settings);
    expect(next.state.status).toBe("dispatching");
    const effect = next.effects[0];
    if (effect?.type !== "dispatch_step") throw new Error("expected the parent's dispatch");
    expect(effect.body.resume).toMatchObject({ kind: "delegation", status: "failed", summary: expect.stringContaining("child fail") });
  });

  it("retries a child the evaluator caught looping, and escalates the run only when the verdict says so", () => {
    const retried = transition(
      finished().state,
      e("verdict.ready", { stepId: "s1.1", attempt: 1, verdict: childVerdict("retry") }),
      settings,
    );
    const effect = retried.effects[0];
    if (effect?.type !== "dispatch_step") throw new Error("expected the child's dispatch");
    expect(effect.body.stepId).toBe("s1.1");
    expect(effect.body.attempt).toBe(2);
    const escalated = transition(
      finished().state,
      e("verdict.ready", { stepId: "s1.1", attempt: 1, verdict: childVerdict("escalate") }),
      settings,
    );
    expect(escalated.state.status).toBe("escalated");
  });
});
