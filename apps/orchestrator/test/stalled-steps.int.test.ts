import { describe, expect, it } from "vitest";
import { isTerminal } from "@rein/contracts/run";
import type { ReinRuntime } from "@rein/runtime";
import type { Harness } from "./support/harness.ts";
import { HungCalls } from "./support/lost-step-workers.ts";
import { lostStepWorkersPerTest } from "./support/lost-step-workers-per-test.ts";
import { probeGoal, probeScript, probeTool } from "./support/probe-run.ts";

// Step workers killed and restarted with one-second locks on a loaded machine: sized generously, not a timing assertion.
describe("a step whose worker is killed twice", { timeout: 180_000 }, () => {
  const rig = lostStepWorkersPerTest();
  // The worker's model: its first two calls never answer, and the process holding each is then killed.
  let hung: HungCalls | undefined;
  let harness: Harness | undefined;

  async function killTwice(
    limits: { maxStalledCount?: number; lostStepRedispatches?: number } = {},
  ): Promise<{ runId: string; stepRuntime: ReinRuntime }> {
    const { maxStalledCount, lostStepRedispatches } = limits;
    hung = new HungCalls(2);
    const queues = {
      ...(maxStalledCount === undefined ? {} : { step: { maxStalledCount } }),
      ...(lostStepRedispatches === undefined ? {} : { lostStepRedispatches }),
    };
    const started = await rig.start(probeScript, [probeTool()], hung, { queues, modelHangs: true });
    harness = started.harness;
    const { workers } = started;
    await workers.killHarnessRole();
    const runId = await harness.submit(probeGoal);
    await workers.killEachInCall(hung, 2);
    return { runId, stepRuntime: workers.stepRuntime };
  }

  it("is taken up again from the queue and its run ends done (the default stall limit, same for every role)", async () => {
    const { runId } = await killTwice();
    const state = await harness?.waitFor(runId);
    expect(state?.status, state?.stopReason).toBe("done");
    expect(hung?.calls).toBeGreaterThanOrEqual(3);
  });

  it("past the configured stall limit is dispatched again as a resumed attempt, leaves no failed job, and its run ends done", async () => {
    const { runId, stepRuntime } = await killTwice({ maxStalledCount: 1 });
    const state = await harness?.waitFor(runId, (candidate) => candidate.status === "escalated" || isTerminal(candidate.status));
    expect(state?.status, state?.stopReason).toBe("done");
    const events = await stepRuntime.trace.read(runId);
    expect(events.filter((event) => event.kind === "step.redispatched").map((event) => [event.stepId, event.payload.redispatch])).toEqual([
      ["s1", 1],
    ]);
    expect(
      events
        .filter((event) => event.kind === "step.dispatched")
        .map((event) => [event.stepId, event.payload.attempt, event.payload.resume]),
    ).toEqual([
      ["s1", 1, 0],
      ["s1", 1, 1],
    ]);
    expect(await stepRuntime.queues.step.getFailedCount()).toBe(0);
  });

  it("past the stall limit and its re-dispatches escalates the run to a person with what happened and what to do, rather than failing it", async () => {
    const { runId } = await killTwice({ maxStalledCount: 1, lostStepRedispatches: 0 });
    const state = await harness?.waitFor(runId, (candidate) => candidate.status === "escalated" || isTerminal(candidate.status));
    expect(state?.status).toBe("escalated");
    expect(state?.stopReason).toMatch(/step s1.*worker.*(died|lost).*2 time/i);
    expect(state?.stopReason).toMatch(/checkpoint is intact.*rein reply/);
  });
});
