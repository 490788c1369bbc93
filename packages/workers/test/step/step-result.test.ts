import { describe, expect, it } from "vitest";
import { zeroUsage } from "@rein/contracts";
import type { ModelResponse } from "@rein/models";
import type { StepContext } from "../../src/step/step-context.ts";
import { budgetStop, finalResult, suspendedResult, toolBudgetStop } from "../../src/step/step-result.ts";
import { packetOf } from "../support/step-fixture.ts";

// Only what the finish stage reads of a step.
function stepAt(overrides: { turns?: number; tokens?: number; now?: number; format?: "text" | "answer" } = {}): StepContext {
  const { body } = packetOf("run_1", "Finish", { maxTurns: 3 });
  body.budget.maxTokens = 1000;
  body.task.outputContract.format = overrides.format ?? "text";
  return {
    body,
    now: () => overrides.now ?? 0,
    deadline: 10_000,
    loop: {
      runId: "run_1",
      stepId: "step_1",
      attempt: 1,
      messages: [],
      observations: [],
      records: [],
      usage: { ...zeroUsage(), inputTokens: overrides.tokens ?? 0 },
      turns: overrides.turns ?? 0,
    },
  } as unknown as StepContext;
}

const reply = (text: string, stopReason: ModelResponse["stopReason"] = "end_turn"): ModelResponse => ({
  content: [{ type: "text", text }],
  stopReason,
  usage: zeroUsage(),
  provider: "scripted",
  model: "scripted",
  retries: 0,
});

describe("the finish stage", () => {
  it("stops before a turn on the first spent budget: turns, then tokens, then time", () => {
    expect(budgetStop(stepAt())).toBeUndefined();
    expect(budgetStop(stepAt({ turns: 3, tokens: 5000 }))?.error).toBe("step turn budget spent");
    expect(budgetStop(stepAt({ tokens: 5000 }))?.error).toBe("step token budget spent");
    expect(budgetStop(stepAt({ now: 10_000 }))?.error).toBe("step time budget spent");
  });

  it("stops after a turn whose last call ran out of tool calls", () => {
    const step = stepAt();
    expect(toolBudgetStop(step)).toBeUndefined();
    step.loop.records.push({ status: "budget_exhausted", fingerprint: "f" } as never);
    expect(toolBudgetStop(step)?.status).toBe("budget_exhausted");
  });

  it("completes on a text answer, fails one cut off by max_tokens, and checks an answer contract", () => {
    expect(finalResult(stepAt(), reply("all done")).status).toBe("completed");
    expect(finalResult(stepAt(), reply("all do", "max_tokens")).error).toMatch(/cut off/);
    expect(finalResult(stepAt({ format: "answer" }), reply("not json")).status).toBe("failed");
    const answered = finalResult(stepAt({ format: "answer" }), reply('```json\n{"answer":"42","claims":[],"gaps":[]}\n```'));
    expect(answered.status).toBe("completed");
    expect(answered.summary).toBe("42");
  });

  it("names what a suspended step waits for", () => {
    expect(suspendedResult(stepAt(), { kind: "approval", approvalId: "appr_1", tool: "write_file" })).toMatchObject({
      status: "needs_approval",
      summary: "waiting for approval of write_file",
    });
    expect(suspendedResult(stepAt(), { kind: "context", question: "which host?", callIndex: 0 })).toMatchObject({
      status: "needs_context",
      summary: "waiting for context: which host?",
    });
  });
});
