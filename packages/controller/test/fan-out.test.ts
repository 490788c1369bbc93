import { describe, expect, it } from "vitest";
import { hashOf, StepSpec, type StepResult, zeroUsage } from "@rein/contracts";
import type { RunState } from "@rein/contracts/run";
import type { ControlEvent } from "@rein/contracts/messages";
import { ReinConfig } from "@rein/runtime";
import { transitionSettings } from "../src/control/controller.ts";
import { transition } from "../src/transition/transition.ts";
import { baseState, event, result, settings, step, verdict } from "../src/testing/transition-fixtures.ts";

const lookup = (title: string) => StepSpec.parse({ title, objective: `Read ${title} and summarise what it says`, tools: ["read_file"] });

const parallelPlan = (count: number, join: Record<string, unknown> = { rule: "all" }) => ({
  done: false,
  current_step: null,
  next_steps: ["Join the findings"],
  risks: [],
  parallel: { steps: Array.from({ length: count }, (_, index) => lookup(`look-up ${index + 1}`)), join },
});

let eventNo = 0;
/** Applies events in order, each with its own id, and returns the last state. */
function apply(state: RunState, ...events: ControlEvent[]) {
  let current = state;
  let last = transition(current, events[0] as ControlEvent, settings);
  for (const each of events) {
    eventNo += 1;
    last = transition(current, { ...each, eventId: `ev-${eventNo}` }, settings);
    current = last.state;
  }
  return last;
}

const planning = (overrides: Partial<RunState> = {}) =>
  baseState({ status: "planning", ...overrides, goal: { ...baseState().goal, maxParallel: 5, ...overrides.goal } });

const planReady = (plan: unknown) => event("plan.ready", { planNo: 1, plan, usage: zeroUsage() });
const finished = (stepId: string, status: StepResult["status"] = "completed", extra: Partial<StepResult> = {}) =>
  event("step.finished", {
    stepId,
    attempt: 1,
    result: result(status, {
      stepId,
      summary: `${stepId} done`,
      observations: [],
      fingerprints: [hashOf(stepId)],
      ...extra,
    }),
  });
const judged = (stepId: string, decision: Parameters<typeof verdict>[0]) =>
  event("verdict.ready", { stepId, attempt: 1, verdict: verdict(decision, { stepId }) });

describe("fan-out from the planner", () => {
  it("dispatches every step of a group at once, each with its own packet and a slice of what the run has left", () => {
    const state = planning({ spent: { steps: 0, tokens: 100_000, costUsd: 1 } });
    const next = apply(state, planReady(parallelPlan(3)));
    const dispatched = next.effects.filter((effect) => effect.type === "dispatch_step");
    expect(dispatched.map((effect) => effect.body.stepId)).toEqual(["s1", "s2", "s3"]);
    const left = state.goal.budget.maxTokens - state.spent.tokens;
    const tokens = dispatched.map((effect) => effect.body.budget.maxTokens);
    const cost = dispatched.map((effect) => effect.body.budget.maxCostUsd ?? Number.POSITIVE_INFINITY);
    expect(tokens.reduce((sum, each) => sum + each, 0)).toBeLessThanOrEqual(left);
    expect(cost.reduce((sum, each) => sum + each, 0)).toBeLessThanOrEqual(state.goal.budget.maxCostUsd - state.spent.costUsd);
    expect(next.state.spent.steps).toBe(3);
    expect(next.state.groups).toEqual([expect.objectContaining({ stepIds: ["s1", "s2", "s3"], phase: "running" })]);
    expect(next.trace.map((each) => each.kind)).toContain("group.started");
  });

  it("takes the run's limit from config packets.maxParallel, where a deployment raises it above the default 4", () => {
    const config = ReinConfig.parse({ packets: { maxParallel: 5 } });
    const next = transition(
      { ...planning(), version: 1 },
      { ...planReady(parallelPlan(5)), eventId: "ev-config" },
      transitionSettings(config, settings.now),
    );
    expect(next.effects.filter((effect) => effect.type === "dispatch_step")).toHaveLength(5);
    expect(next.trace.map((each) => each.kind)).not.toContain("group.refused");
  });

  it("refuses a group larger than maxParallel and asks the planner again with the reason", () => {
    const state = planning({ goal: { ...baseState().goal, maxParallel: 2 } });
    const next = apply(state, planReady(parallelPlan(3)));
    expect(next.effects.some((effect) => effect.type === "dispatch_step")).toBe(false);
    const plan = next.effects.find((effect) => effect.type === "enqueue_plan");
    expect(plan?.type === "enqueue_plan" && plan.job.context.lastVerdict?.reasons[0]).toMatch(/more than maxParallel 2/);
    expect(next.trace.map((each) => each.kind)).toContain("group.refused");
  });

  it("asks the planner again only when the whole group has joined, with every member's result in its digest", () => {
    const state = planning();
    let next = apply(state, planReady(parallelPlan(3)), finished("s1"), judged("s1", "continue"), finished("s3"), judged("s3", "continue"));
    expect(next.effects.some((effect) => effect.type === "enqueue_plan")).toBe(false);
    expect(next.state.status).toBe("dispatching");
    next = apply(next.state, finished("s2"), judged("s2", "continue"));
    const plan = next.effects.find((effect) => effect.type === "enqueue_plan");
    expect(plan?.type === "enqueue_plan" && plan.job.context.completedSteps.map((each) => each.stepId)).toEqual(["s1", "s2", "s3"]);
    expect(next.state.groups?.[0]?.phase).toBe("joined");
  });

  it("an all group with one failing member cancels its siblings and goes on by the verdict table", () => {
    const state = planning();
    const started = apply(state, planReady(parallelPlan(3)), finished("s1"));
    const replanned = apply(started.state, judged("s1", "replan"));
    expect(replanned.state.steps.map((each) => each.phase)).toEqual(["failed", "cancelled", "cancelled"]);
    expect(replanned.effects).toContainEqual(expect.objectContaining({ type: "cancel_steps", stepIds: ["s2", "s3"] }));
    expect(replanned.state.status).toBe("planning");
    const failed = apply(started.state, judged("s1", "fail"));
    expect(failed.state.status).toBe("failed");
    expect(failed.state.steps.map((each) => each.phase)).toEqual(["failed", "cancelled", "cancelled"]);
  });

  it("an any group cancels the losers once one member passes", () => {
    const next = apply(planning(), planReady(parallelPlan(3, { rule: "any" })), finished("s2"), judged("s2", "continue"));
    expect(next.state.steps.map((each) => each.phase)).toEqual(["cancelled", "completed", "cancelled"]);
    expect(next.effects).toContainEqual(expect.objectContaining({ type: "cancel_steps", stepIds: ["s1", "s3"] }));
    expect(next.state.status).toBe("planning");
  });

  it("a quorum group joins once n members passed", () => {
    let next = apply(planning(), planReady(parallelPlan(3, { rule: "quorum", n: 2 })), finished("s1"), judged("s1", "fail"));
    expect(next.state.groups?.[0]?.phase).toBe("running");
    next = apply(next.state, finished("s2"), judged("s2", "continue"), finished("s3"), judged("s3", "continue"));
    expect(next.state.groups?.[0]?.phase).toBe("joined");
    expect(next.state.status).toBe("planning");
  });

  it("decides the same whatever order the members finish in: the join's inputs and the planner's digest are in the order asked", () => {
    const withObservation = (stepId: string) =>
      finished(stepId, "completed", {
        observations: [
          {
            id: `obs_${stepId}`,
            callId: `c_${stepId}`,
            tool: "read_file",
            status: "ok",
            content: `${stepId} says hello`,
            empty: false,
            flags: [],
            provenance: { tool: "read_file", argsHash: hashOf(stepId), observedAt: "x", cacheHit: false, replayed: false, trust: "tool" },
          },
        ],
      });
    const run = (order: string[]) =>
      apply(planning(), planReady(parallelPlan(3)), ...order.flatMap((stepId) => [withObservation(stepId), judged(stepId, "continue")]));
    const forward = run(["s1", "s2", "s3"]);
    const reverse = run(["s3", "s2", "s1"]);
    const planOf = (outcome: ReturnType<typeof run>) => outcome.effects.find((effect) => effect.type === "enqueue_plan");
    expect(planOf(reverse)).toEqual(planOf(forward));
    expect(reverse.state.evidence).toEqual(forward.state.evidence);
    expect(reverse.state.verdicts).toEqual(forward.state.verdicts);
    const joinOf = (outcome: ReturnType<typeof run>) => outcome.trace.find((each) => each.kind === "group.joined")?.payload;
    expect(joinOf(reverse)).toEqual(joinOf(forward));
  });

  it("keeps the run's status on the members still running while one is evaluated", () => {
    const next = apply(
      planning(),
      planReady(parallelPlan(2)),
      event("step.started", { stepId: "s1", attempt: 1 }),
      event("step.started", { stepId: "s2", attempt: 1 }),
      finished("s1"),
    );
    expect(next.state.status).toBe("executing");
    const judgedFirst = apply(next.state, judged("s1", "continue"));
    expect(judgedFirst.applied).toBe(true);
    expect(judgedFirst.state.status).toBe("executing");
  });
});

describe("fan-out from a worker", () => {
  const tools = [{ name: "read_file", scope: {} }];
  const ask = (title: string, budget: Record<string, number> = {}) => ({
    reason: `look up ${title}`,
    request: { title, objective: `Read ${title} and say what it holds`, tools, budget, outputDescription: "what it holds" },
  });
  const executing = () =>
    baseState({
      status: "executing",
      steps: [step("executing", { spec: { ...step("executing").spec, budget: { maxTokens: 90_000, maxToolCalls: 30 } } })],
      goal: { ...baseState().goal, maxParallel: 3 },
    });
  type Join = { rule: "all" | "any" | "quorum"; n?: number };
  const delegated = (count: number, budget: Record<string, number> = {}, joins: (Join | undefined)[] = []) =>
    finished("s1", "delegated", {
      turns: 1,
      toolCalls: [],
      usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 },
      suspension: {
        kind: "delegate",
        ...ask("part 1", budget),
        callIndex: 0,
        ...(joins[0] ? { join: joins[0] } : {}),
        more: Array.from({ length: count - 1 }, (_, index) => ({
          ...ask(`part ${index + 2}`),
          callIndex: index + 1,
          ...(joins[index + 1] ? { join: joins[index + 1] } : {}),
        })),
      },
    });
  const child = (stepId: string) =>
    finished(stepId, "completed", { summary: `${stepId} found it`, stepId, runId: "run_t", attempt: 1 } as Partial<StepResult>);
  const resumeOf = (next: ReturnType<typeof apply>) =>
    next.effects.flatMap((effect) => (effect.type === "dispatch_step" && effect.body.stepId === "s1" ? [effect.body.resume] : []))[0];

  it("dispatches every child at once with slices that add up to at most what the parent had", () => {
    const next = apply(executing(), delegated(3));
    const bodies = next.effects.flatMap((effect) => (effect.type === "dispatch_step" ? [effect.body] : []));
    expect(bodies.map((body) => body.stepId)).toEqual(["s1.1", "s1.2", "s1.3"]);
    expect(bodies.reduce((sum, body) => sum + body.budget.maxTokens, 0)).toBeLessThanOrEqual(90_000);
    expect(bodies.reduce((sum, body) => sum + body.budget.maxToolCalls, 0)).toBeLessThanOrEqual(30);
    expect(next.state.steps[0]?.phase).toBe("suspended");
  });

  it("refuses a child asking for more than its parent has, and the parent resumes with the reason for each call", () => {
    const next = apply(executing(), delegated(2, { maxTokens: 500_000 }));
    const resumed = next.effects.flatMap((effect) => (effect.type === "dispatch_step" ? [effect.body] : []));
    expect(resumed.map((body) => body.stepId)).toEqual(["s1"]);
    const resume = resumed[0]?.resume;
    expect(resume?.kind).toBe("delegations");
    if (resume?.kind !== "delegations") return;
    expect(resume.children.map((child) => child.callIndex)).toEqual([0, 1]);
    expect(resume.children[0]?.refusal).toMatch(/maxTokens 500000 is more than/);
  });

  it("refuses more children than maxParallel", () => {
    const next = apply(executing(), delegated(4));
    const resume = next.effects.flatMap((effect) => (effect.type === "dispatch_step" ? [effect.body] : []))[0]?.resume;
    expect(resume?.kind === "delegations" && resume.children[0]?.refusal).toMatch(/more than maxParallel 3/);
  });

  it("resumes the parent once every child is judged, with one answer per child in the order asked", () => {
    const next = apply(
      executing(),
      delegated(3),
      child("s1.3"),
      judged("s1.3", "continue"),
      child("s1.1"),
      judged("s1.1", "fail"),
      child("s1.2"),
    );
    expect(next.state.steps.map((each) => [each.stepId, each.phase])).toEqual([
      ["s1", "dispatched"],
      ["s1.1", "failed"],
      ["s1.2", "cancelled"],
      ["s1.3", "completed"],
    ]);
    const resume = next.state.steps[0]?.resumeInput;
    expect(resume?.kind === "delegations" && resume.children.map((each) => [each.childStepId, each.status, each.callIndex])).toEqual([
      ["s1.1", "failed", 0],
      ["s1.2", "cancelled", 1],
      ["s1.3", "completed", 2],
    ]);
  });

  it("joins by the rule the worker asked for: with any, the first child to pass resumes the parent and its siblings are cancelled", () => {
    const started = apply(executing(), delegated(3, {}, [{ rule: "any" }]));
    expect(started.state.groups?.[0]?.join).toEqual({ rule: "any" });
    const next = apply(started.state, child("s1.2"), judged("s1.2", "continue"));
    expect(next.state.steps.map((each) => [each.stepId, each.phase])).toEqual([
      ["s1", "dispatched"],
      ["s1.1", "cancelled"],
      ["s1.2", "completed"],
      ["s1.3", "cancelled"],
    ]);
    const resume = resumeOf(next);
    expect(resume?.kind === "delegations" && resume.children.map((each) => [each.childStepId, each.status])).toEqual([
      ["s1.1", "cancelled"],
      ["s1.2", "completed"],
      ["s1.3", "cancelled"],
    ]);
    expect(next.effects).toContainEqual(expect.objectContaining({ type: "cancel_steps", stepIds: ["s1.1", "s1.3"] }));
  });

  it("joins a quorum once n children passed, and takes the rule from whichever call of the turn names it", () => {
    const started = apply(executing(), delegated(3, {}, [undefined, { rule: "quorum", n: 2 }]));
    expect(started.state.groups?.[0]?.join).toEqual({ rule: "quorum", n: 2 });
    const one = apply(started.state, child("s1.1"), judged("s1.1", "continue"));
    expect(resumeOf(one)).toBeUndefined();
    const two = apply(one.state, child("s1.3"), judged("s1.3", "continue"));
    const resume = resumeOf(two);
    expect(resume?.kind === "delegations" && resume.children.map((each) => each.status)).toEqual(["completed", "cancelled", "completed"]);
  });

  it("refuses calls of one turn that name different joins, or a quorum the children cannot reach, answering every call with the reason", () => {
    const mixed = resumeOf(apply(executing(), delegated(2, {}, [{ rule: "any" }, { rule: "all" }])));
    expect(mixed?.kind === "delegations" && mixed.children.map((each) => each.refusal)).toEqual([
      expect.stringMatching(/name different joins.*any.*all/),
      expect.stringMatching(/name different joins/),
    ]);
    const unreachable = resumeOf(apply(executing(), delegated(2, {}, [{ rule: "quorum", n: 3 }])));
    expect(unreachable?.kind === "delegations" && unreachable.children[0]?.refusal).toMatch(/quorum of 3 cannot be reached by 2/);
  });

  it("a lost worker holding one child gets the child dispatched again, and the join still happens once", () => {
    let next = apply(executing(), delegated(2), event("step.started", { stepId: "s1.1", attempt: 1 }));
    next = apply(next.state, event("step.errored", { stepId: "s1.1", attempt: 1, cause: "worker_lost", reason: "SIGKILL" }));
    const again = next.effects.flatMap((effect) => (effect.type === "dispatch_step" ? [effect.body.stepId] : []));
    expect(again).toEqual(["s1.1"]);
    next = apply(next.state, finished("s1.2"), judged("s1.2", "continue"), finished("s1.1"), judged("s1.1", "continue"));
    const resumedParent = next.effects.filter((effect) => effect.type === "dispatch_step" && effect.body.stepId === "s1");
    expect(resumedParent).toHaveLength(1);
    const joins = next.trace.filter((each) => each.kind === "group.joined");
    expect(joins).toHaveLength(1);
    const late = apply(next.state, finished("s1.1"));
    expect(late.state.steps.find((each) => each.stepId === "s1")?.resumes).toBe(1);
  });
});
