import { describe, expect, it } from "vitest";
import { Goal } from "@rein/contracts";
import type { RunState } from "@rein/contracts/run";
import { transition } from "../src/transition/transition.ts";
import { baseState, event, planned, result, settings, step, usage, verdict } from "@rein/controller/testing";

const budgeted = (maxTokens: number, overrides: Partial<RunState> = {}) =>
  baseState({ goal: Goal.parse({ text: "Fix the bug", tools: [{ name: "read_file" }], budget: { maxTokens } }), ...overrides });

const counted = (next: ReturnType<typeof transition>) =>
  next.trace.filter((entry) => entry.kind === "usage.counted").map((entry) => entry.payload);

describe("the budget prologue", () => {
  it("counts what a failed planning attempt and its repairs spent", () => {
    const next = transition(
      baseState(),
      event("plan.failed", { planNo: 1, reason: "invalid output 3 times", usage: usage(900) }),
      settings,
    );
    expect(next.state.spent.tokens).toBe(900);
    expect(next.state.usage.inputTokens).toBe(900);
    expect(counted(next)).toEqual([{ source: "plan.failed", role: "planner", usage: usage(900) }]);
  });

  it("counts the judge's tokens that come with a verdict, and a context answer's", () => {
    const judged = transition(
      baseState({ status: "evaluating", steps: [step("evaluating")] }),
      event("verdict.ready", { stepId: "s1", attempt: 1, verdict: verdict("continue"), usage: usage(300, 0.01) }),
      settings,
    );
    expect(judged.state.spent).toMatchObject({ tokens: 300, costUsd: 0.01 });
    const waiting = baseState({ status: "executing", steps: [step("suspended", { awaitingContext: "which log?" })] });
    const answered = transition(
      waiting,
      event("context.answered", { stepId: "s1", attempt: 1, evidenceIds: [], refusal: "nothing to pass", usage: usage(40) }),
      settings,
    );
    expect(answered.state.spent.tokens).toBe(40);
  });

  it("counts a resumed step's usage once, though the worker reports its attempt's usage cumulatively", () => {
    const running = baseState({ status: "executing", steps: [step("executing")] });
    const suspended = transition(
      running,
      event("step.finished", {
        stepId: "s1",
        attempt: 1,
        result: result("needs_approval", {
          usage: usage(100),
          suspension: { kind: "approval", approvalId: "apr_1", tool: "restart_service" },
        }),
      }),
      settings,
    );
    expect(suspended.state.spent.tokens).toBe(100);
    const resumed = transition(suspended.state, { ...event("approval.decided", { approvalId: "apr_1", decision: "approved" }) }, settings);
    const started = transition(resumed.state, event("step.started", { stepId: "s1", attempt: 1 }), settings);
    const finished = transition(
      started.state,
      {
        ...event("step.finished", { stepId: "s1", attempt: 1, result: result("completed", { usage: usage(160) }) }),
        eventId: "ev-finished-2",
      },
      settings,
    );
    expect(finished.state.spent.tokens).toBe(160);
    expect(finished.state.steps[0]?.usage.inputTokens).toBe(160);
  });

  it("counts a stale event's spend even though the event itself does not apply", () => {
    const cancelled = baseState({ status: "cancelled", steps: [step("cancelled")] });
    const late = transition(
      cancelled,
      event("verdict.ready", { stepId: "s1", attempt: 1, verdict: verdict("continue"), usage: usage(250) }),
      settings,
    );
    expect(late.applied).toBe(true);
    expect(late.state.status).toBe("cancelled");
    expect(late.state.spent.tokens).toBe(250);
    expect(late.effects).toEqual([]);
    expect(late.trace.map((entry) => entry.kind)).toEqual(["usage.counted", "event.ignored"]);
    expect(
      transition(
        late.state,
        event("verdict.ready", { stepId: "s1", attempt: 1, verdict: verdict("continue"), usage: usage(250) }),
        settings,
      ).applied,
    ).toBe(false);
  });

  it("stops the run instead of resuming a step once the token budget is spent", () => {
    const waiting = budgeted(100, {
      status: "waiting_approval",
      spent: { steps: 1, tokens: 100, costUsd: 0 },
      steps: [step("suspended", { awaitingApprovalId: "apr_1" })],
      pendingApprovals: ["apr_1"],
    });
    const next = transition(waiting, event("approval.decided", { approvalId: "apr_1", decision: "approved" }), settings);
    expect(next.state.status).toBe("failed");
    expect(next.state.stopReason).toMatch(/token budget spent: 100 of 100/);
    expect(next.effects.map((effect) => effect.type)).not.toContain("dispatch_step");
    expect(next.state.steps[0]?.phase).toBe("cancelled");
  });

  it("stops the run instead of dispatching a delegated child once the cost budget is spent", () => {
    const goal = Goal.parse({ text: "Fix the bug", tools: [{ name: "read_file" }], budget: { maxCostUsd: 0.5 } });
    const running = baseState({ goal, status: "executing", spent: { steps: 1, tokens: 0, costUsd: 0.4 }, steps: [step("executing")] });
    const delegated = result("delegated", {
      usage: usage(10, 0.2),
      suspension: {
        kind: "delegate",
        reason: "narrower",
        request: {
          title: "Read it",
          objective: "Read src/add.js and report",
          tools: [{ name: "read_file", scope: {} }],
          budget: {},
          outputDescription: "body",
        },
        callIndex: 0,
      },
    });
    const next = transition(running, event("step.finished", { stepId: "s1", attempt: 1, result: delegated }), settings);
    expect(next.state.status).toBe("failed");
    expect(next.state.stopReason).toMatch(/cost budget spent/);
    expect(next.effects.map((effect) => effect.type)).not.toContain("dispatch_step");
  });

  it("still lets the planner's first plan through a budget with room", () => {
    const next = transition(budgeted(1_000), event("plan.ready", { planNo: 1, plan: planned, usage: usage(200) }), settings);
    expect(next.state.status).toBe("dispatching");
    expect(next.state.spent.tokens).toBe(200);
  });
});
