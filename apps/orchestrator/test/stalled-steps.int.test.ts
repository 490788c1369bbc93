import { afterEach, describe, expect, it } from "vitest";
import { isTerminal, type ReinRuntime } from "@rein/core";
import { until } from "@rein/core/testing";
import { type RunningRoles, startRoles } from "../src/roles/start-roles.ts";
import { hangingFirst } from "./support/hanging-provider.ts";
import { type Harness, startHarness } from "./support/harness.ts";
import { killRole } from "./support/kill-role.ts";
import { probeGoal, probeScript, probeTool } from "./support/probe-run.ts";

// Step workers killed and restarted with one-second locks on a loaded machine: sized generously, not a timing assertion.
describe("a step whose worker is killed twice", { timeout: 180_000 }, () => {
  let harness: Harness | undefined;
  const extraRoles: RunningRoles[] = [];
  let worker: ReturnType<typeof hangingFirst> | undefined;
  afterEach(async () => {
    worker?.release();
    for (const role of extraRoles.splice(0)) await role.close(0);
    await harness?.close();
    harness = undefined;
  });

  async function killTwice(limits: { maxStalledCount?: number; lostStepRedispatches?: number } = {}): Promise<{ runId: string; stepRuntime: ReinRuntime }> {
    const { maxStalledCount, lostStepRedispatches } = limits;
    harness = await startHarness(probeScript, [probeTool()], {
      config: {
        queues: { lockMs: 1_000, stalledIntervalMs: 1_000, ...(maxStalledCount === undefined ? {} : { step: { maxStalledCount } }), ...(lostStepRedispatches === undefined ? {} : { lostStepRedispatches }) },
      },
    });
    const stepRuntime = harness.roleRuntimes[2] as ReinRuntime;
    worker = hangingFirst(2, harness.worker);
    const original = harness.roles[2] as RunningRoles;
    await killRole(original);
    const startStepRole = () => {
      const role = startRoles(stepRuntime, { roles: ["step"], packetPublicKey: harness?.packetPublicKey, executor: harness?.tooling.executor, providers: { worker } });
      extraRoles.push(role);
      return role;
    };
    const runId = await harness.submit(probeGoal);
    for (let kill = 1; kill <= 2; kill += 1) {
      const role = startStepRole();
      await until(`the step worker's model call ${kill}`, () => (worker?.calls ?? 0) >= kill);
      await killRole(role);
    }
    startStepRole();
    return { runId, stepRuntime };
  }

  it("is taken up again from the queue and its run ends done (the default stall limit, same for every role)", async () => {
    const { runId } = await killTwice();
    const state = await harness?.waitFor(runId);
    expect(state?.status, state?.stopReason).toBe("done");
    expect(worker?.calls).toBeGreaterThanOrEqual(3);
  });

  it("past the configured stall limit is dispatched again as a resumed attempt, leaves no failed job, and its run ends done", async () => {
    const { runId, stepRuntime } = await killTwice({ maxStalledCount: 1 });
    const state = await harness?.waitFor(runId, (candidate) => candidate.status === "escalated" || isTerminal(candidate.status));
    expect(state?.status, state?.stopReason).toBe("done");
    const events = await stepRuntime.trace.read(runId);
    expect(events.filter((event) => event.kind === "step.redispatched").map((event) => [event.stepId, event.payload.redispatch])).toEqual([["s1", 1]]);
    expect(events.filter((event) => event.kind === "step.dispatched").map((event) => [event.stepId, event.payload.attempt, event.payload.resume])).toEqual([
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
