import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunState, TraceEvent } from "@rein/contracts/run";
import type { ModelScriptInput } from "@rein/models";
import { echoTool } from "@rein/tools/testing";
import { type Harness, startHarness } from "./support/harness.ts";

/**
 * Issue 28, case 6: with a run cap of 1,000 tokens and a step budget of 1e9
 * from the planner, a worker made 21 calls and 10,600 tokens before it was
 * stopped from outside, because budgets were checked only between events.
 */
describe("a step inside a run's token budget", () => {
  let harness: Harness;
  let state: RunState;
  let trace: TraceEvent[];
  const perCall = { inputTokens: 400, outputTokens: 100 };

  const script: ModelScriptInput = {
    planner: [
      {
        match: "Completed steps: none",
        turns: [
          {
            output: {
              current_step: {
                title: "Echo forever",
                objective: "Echo numbers",
                tools: [echoTool.name],
                budget: { maxTokens: 1_000_000_000, maxTurns: 50, maxToolCalls: 50 },
              },
              done: false,
            },
            usage: { inputTokens: 50, outputTokens: 50 },
          },
        ],
      },
    ],
    worker: [
      { match: "Task: Echo forever", turns: [{ toolCalls: [{ name: echoTool.name, input: { i: 1 } }], usage: perCall }], repeatLast: true },
    ],
  };

  beforeAll(async () => {
    harness = await startHarness(script, [echoTool]);
    const runId = await harness.submit({ text: "Echo until told to stop", tools: [{ name: echoTool.name }], budget: { maxTokens: 1_000 } });
    state = await harness.waitFor(runId, (current) => ["done", "failed", "escalated", "cancelled"].includes(current.status));
    trace = await harness.runtime.trace.read(runId);
  });
  afterAll(async () => {
    await harness.close();
  });

  const workerCalls = () => trace.filter((event) => event.kind === "model.responded" && event.payload.role === "worker");

  it("gives the step no more than the run has left", () => {
    const step = Object.values(state.steps)[0];
    expect(step).toBeDefined();
    const dispatched = trace.find((event) => event.kind === "step.dispatched");
    const budget = (dispatched?.payload.packet as { budget?: { maxTokens: number } } | undefined)?.budget;
    expect(budget?.maxTokens).toBeLessThanOrEqual(1_000 - 100);
  });

  it("stops the step at the run's cap, not after it: the run never spends more than its budget", () => {
    expect(workerCalls().length).toBeLessThanOrEqual(2);
    expect(state.spent.tokens).toBeLessThanOrEqual(1_000);
    const traced = trace
      .filter((event) => event.kind === "model.responded")
      .reduce((sum, event) => sum + (event.usage?.inputTokens ?? 0) + (event.usage?.outputTokens ?? 0), 0);
    expect(traced).toBeLessThanOrEqual(1_000);
  });

  it("ends undone, its step saying which budget stopped it and what was left", () => {
    expect(state.status).not.toBe("done");
    const step = Object.values(state.steps)[0];
    expect(step?.summary).toMatch(/would pass the step's budget: \d+ tokens/);
  });
});
