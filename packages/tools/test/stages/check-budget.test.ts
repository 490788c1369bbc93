import { describe, expect, it } from "vitest";
import { checkBudget } from "../../src/executor/stages/check-budget.ts";
import { callInProgress, noteTool } from "../../src/testing/stage-harness.ts";

describe("check-budget stage", () => {
  const { tool } = noteTool();

  it("passes a call while the step has calls and time left", async () => {
    const { state } = callInProgress({ state: { tool } });
    expect(await checkBudget(state)).toBeUndefined();
  });

  it("ends a call past the step's tool-call budget as fatal", async () => {
    const { state, trace } = callInProgress({ context: { callsSoFar: 10 }, state: { tool } });
    const ending = await checkBudget(state);
    expect(ending).toMatchObject({ status: "budget_exhausted", failure: "fatal", message: "this step has used all 10 of its tool calls" });
    expect(trace.ofKind("tool.budget_exhausted")[0]?.payload).toMatchObject({ callsSoFar: 10, maxToolCalls: 10 });
  });

  it("ends a call after the step's deadline", async () => {
    const { state } = callInProgress({
      context: { budget: { maxToolCalls: 10, deadline: Date.parse("2026-11-30T00:00:00.000Z") } },
      state: { tool },
    });
    expect((await checkBudget(state))?.message).toMatch(/deadline .* has passed/);
  });
});
