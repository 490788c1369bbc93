import { describe, expect, it } from "vitest";
import { isTerminal } from "@rein/contracts/run";
import type { ModelScriptInput } from "@rein/models";
import { defineTool, z } from "@rein/tools";
import { plannerOfSteps } from "@rein/models/testing";
import { decideApproval } from "../src/approvals/decide-approval.ts";
import { HungCalls } from "./support/lost-step-workers.ts";
import { lostStepWorkersPerTest } from "./support/lost-step-workers-per-test.ts";

/**
 * An idempotent restart that always needs approval. Its first `hangs` runs
 * never end (the worker running them is then killed, as SIGKILL would leave
 * them); only a run that returns counts as a restart.
 */
function hangingRestart(hangs: number) {
  const hung = new HungCalls(hangs);
  const counts = { restarts: 0 };
  const tool = defineTool({
    name: "restart_service",
    description: "Restarts a service; restarting it twice is the same as once.",
    effect: "destructive",
    idempotent: true,
    approval: "always",
    timeoutMs: 600_000,
    input: z.object({ service: z.string() }),
    scope: (args) => ({ services: [args.service] }),
    run: async (args) => {
      await hung.enter();
      counts.restarts += 1;
      return `restarted ${args.service}`;
    },
  });
  return { tool, hung, counts };
}

const script: ModelScriptInput = {
  planner: plannerOfSteps(
    [
      {
        title: "Restart the api",
        objective: "Restart payment-api with restart_service.",
        tools: ["restart_service"],
        output_contract: { description: "one line", format: "text" },
      },
    ],
    {
      answer: "payment-api was restarted",
      claims: [{ text: "payment-api was restarted", evidence: ["{{evidence:restart_service}}"] }],
      gaps: [],
    },
  ),
  worker: [
    {
      match: "Task: Restart the api",
      turns: [{ toolCalls: [{ name: "restart_service", input: { service: "payment-api" } }] }, { text: "restarted payment-api" }],
    },
  ],
};

// Step workers killed and restarted with one-second locks on a loaded machine: sized generously, not a timing assertion.
describe("a step resumed from an approval whose workers are lost", { timeout: 240_000 }, () => {
  const rig = lostStepWorkersPerTest();

  it("is re-dispatched past its stall limit and runs the approved call once, without asking the person again", async () => {
    const restart = hangingRestart(2);
    const { harness, workers } = await rig.start(script, [restart.tool], restart.hung, { queues: { step: { maxStalledCount: 1 } } });
    const runId = await harness.submit({ text: "Restart payment-api", tools: [{ name: "restart_service" }] });
    const waiting = await harness.waitFor(runId, (state) => state.status === "waiting_approval" || isTerminal(state.status));
    expect(waiting.status).toBe("waiting_approval");
    const approvalId = waiting.pendingApprovals[0] as string;

    // The step role that asked is gone; the resumed job goes to workers that are killed mid-call, twice.
    await workers.killHarnessRole();
    await decideApproval(harness.runtime, harness.desk, approvalId, { decision: "approved", approver: "test:oncall" });
    await workers.killEachInCall(restart.hung, 2);

    const state = await harness.waitFor(runId, (candidate) => candidate.status === "waiting_approval" || isTerminal(candidate.status));
    expect(state.status, state.stopReason).toBe("done");
    expect(restart.counts.restarts).toBe(1);
    expect((await harness.desk.store.list({ runId })).map((approval) => approval.approvalId)).toEqual([approvalId]);
    const events = await workers.stepRuntime.trace.read(runId);
    expect(events.filter((event) => event.kind === "step.redispatched")).toHaveLength(1);
    expect(events.filter((event) => event.kind === "approval.requested")).toHaveLength(1);
  });
});
