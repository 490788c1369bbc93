import { describe, expect, it } from "vitest";
import { isTerminal } from "@rein/contracts/run";
import type { ModelScriptInput } from "@rein/models";
import { defineTool, z } from "@rein/tools";
import { plannerOfSteps } from "@rein/models/testing";
import { HungCalls } from "./support/lost-step-workers.ts";
import { lostStepWorkersPerTest } from "./support/lost-step-workers-per-test.ts";

/** An idempotent health check whose first `hangs` runs never end (the worker running them is then killed, as SIGKILL would leave them). */
function hangingCheck(hangs: number) {
  const hung = new HungCalls(hangs);
  const tool = defineTool({
    name: "check_health",
    description: "Reads a service's health.",
    effect: "read",
    idempotent: true,
    timeoutMs: 600_000,
    input: z.object({ service: z.string() }),
    scope: (args) => ({ services: [args.service] }),
    run: async (args) => {
      await hung.enter();
      return `${args.service} healthy`;
    },
  });
  return { tool, hung };
}

// The parent delegates and checks health in the same turn: resumed with its child's result, it answers the
// delegate call from the resume and is killed inside the check, before the turn is checkpointed.
const script: ModelScriptInput = {
  planner: plannerOfSteps(
    [
      {
        title: "Survey the api",
        objective: "Delegate the read, then check payment-api's health.",
        tools: ["check_health"],
        output_contract: { description: "one line", format: "text" },
      },
    ],
    { answer: "payment-api is healthy", claims: [{ text: "payment-api is healthy", evidence: ["{{evidence:check_health}}"] }], gaps: [] },
  ),
  worker: [
    {
      match: "Task: Survey the api",
      turns: [
        {
          toolCalls: [
            {
              name: "delegate",
              input: {
                reason: "a separate job",
                task: {
                  title: "Check once",
                  objective: "Check payment-api's health",
                  tools: [{ name: "check_health", scope: { services: ["payment-api"] } }],
                  budget: { maxTurns: 3 },
                },
              },
            },
            { name: "check_health", input: { service: "payment-api" } },
          ],
        },
        { text: "payment-api is healthy" },
      ],
    },
    { match: "Task: Check once", turns: [{ text: "payment-api looked fine" }] },
  ],
};

// Step workers killed and restarted with one-second locks on a loaded machine: sized generously, not a timing assertion.
describe("a step resumed from its child's result whose workers are lost", { timeout: 240_000 }, () => {
  const rig = lostStepWorkersPerTest();

  it("is re-dispatched past its stall limit with the child's result and does not delegate again", async () => {
    const check = hangingCheck(2);
    const { harness, workers } = await rig.start(script, [check.tool], check.hung, { queues: { step: { maxStalledCount: 1 } } });
    await workers.killHarnessRole();
    const runId = await harness.submit({ text: "Is payment-api healthy?", tools: [{ name: "check_health" }] });
    // The resumed parent hangs in its check; its worker, then the next one, are killed mid-call.
    await workers.killEachInCall(check.hung, 2);

    const state = await harness.waitFor(runId, (candidate) => isTerminal(candidate.status) || candidate.status === "waiting_approval");
    expect(state.status, state.stopReason).toBe("done");
    const events = await workers.stepRuntime.trace.read(runId);
    expect(events.filter((event) => event.kind === "step.redispatched")).toHaveLength(1);
    expect(events.filter((event) => event.kind === "step.delegated")).toHaveLength(1);
    expect(state.steps.map((step) => step.stepId)).toEqual(["s1", "s1.1"]);
  });
});
