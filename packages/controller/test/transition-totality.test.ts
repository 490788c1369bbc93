import { describe, expect, it } from "vitest";
import { ReinConfig } from "@rein/runtime";
import { transitionSettings } from "../src/control/controller.ts";
import { transition } from "../src/transition/transition.ts";
import { baseState, event, result, settings, step } from "@rein/controller/testing";

const delegation = (extra: Record<string, unknown> = {}) => ({
  kind: "delegate" as const,
  reason: "a narrower task",
  request: {
    title: "Read the file",
    objective: "Read src/add.js and report its body",
    tools: [{ name: "read_file", scope: {} }],
    budget: {},
    outputDescription: "the body",
    ...extra,
  },
  callIndex: 0,
});

describe("a total transition", () => {
  it("refuses a delegation on the worker's last turn (a child budget of 0) as an observation to the parent", () => {
    const state = baseState({ status: "executing", steps: [step("executing")] });
    const lastTurn = result("delegated", { turns: 12, suspension: delegation() });
    const next = transition(state, event("step.finished", { stepId: "s1", attempt: 1, result: lastTurn }), settings);
    expect(next.applied).toBe(true);
    expect(next.state.status).toBe("dispatching");
    const refused = next.trace.find((entry) => entry.kind === "delegation.refused");
    expect(refused?.payload.reason).toMatch(/maxTurns/);
    expect(next.state.steps).toHaveLength(1);
    const parent = next.effects.find((effect) => effect.type === "dispatch_step");
    if (parent?.type !== "dispatch_step") throw new Error("expected the parent to resume");
    expect(parent.body.stepId).toBe("s1");
    expect(parent.body.resume).toMatchObject({ kind: "delegation", status: "refused" });
  });

  it("refuses a delegation deeper than the configured maximum", () => {
    const state = baseState({ status: "executing", steps: [step("executing", { depth: 1 })] });
    const next = transition(
      state,
      event("step.finished", { stepId: "s1", attempt: 1, result: result("delegated", { suspension: delegation() }) }),
      { ...settings, maxDepth: 1 },
    );
    expect(next.trace.find((entry) => entry.kind === "delegation.refused")?.payload.reason).toMatch(/depth 2 is over the maximum of 1/);
    expect(next.state.steps).toHaveLength(1);
  });

  it("turns an unexpected exception into a failed run that says why, never a throw", () => {
    const state = baseState({ status: "evaluating", steps: [step("evaluating")] });
    // An invalid packet lifetime makes building the retry's packet throw deep inside the handler.
    const broken = { ...settings, packetTtlMs: Number.NaN };
    const retry = event("verdict.ready", {
      stepId: "s1",
      attempt: 1,
      verdict: { schemaVersion: 1, runId: "run_t", stepId: "s1", attempt: 1, decision: "retry", reasons: ["again"], checks: [] },
    });
    const next = transition(state, retry, broken);
    expect(next.applied).toBe(true);
    expect(next.state.status).toBe("failed");
    expect(next.state.stopReason).toMatch(/verdict\.ready .*Invalid time value/);
    expect(next.state.version).toBe(state.version + 1);
    // Nothing the broken handler emitted; only what ends every run.
    expect(next.effects).toEqual([{ type: "retire_run" }]);
    expect(next.trace.map((entry) => entry.kind)).toContain("transition.failed");
    expect(next.state.steps.every((candidate) => ["completed", "failed", "cancelled"].includes(candidate.phase))).toBe(true);
  });

  it("fails the run with the reason when the controller could not apply an event for good", () => {
    const state = baseState({ status: "planning" });
    const next = transition(
      state,
      event("event.failed", { failedEventId: "ev-1", failedEventType: "goal.submitted", reason: "enqueue failed: connection reset" }),
      settings,
    );
    expect(next.state.status).toBe("failed");
    expect(next.state.stopReason).toMatch(/could not apply goal\.submitted event ev-1: enqueue failed: connection reset/);
  });
});

describe("the controller's transition settings", () => {
  it("take the delegation depth from config.packets.maxDepth, the limit workers check packets against", () => {
    const config = ReinConfig.parse({ packets: { maxDepth: 1 } });
    expect(transitionSettings(config, settings.now).maxDepth).toBe(1);
    const state = baseState({ status: "executing", steps: [step("executing", { depth: 1 })] });
    const next = transition(
      state,
      event("step.finished", { stepId: "s1", attempt: 1, result: result("delegated", { suspension: delegation() }) }),
      transitionSettings(config, settings.now),
    );
    expect(next.trace.map((entry) => entry.kind)).toContain("delegation.refused");
  });
});
