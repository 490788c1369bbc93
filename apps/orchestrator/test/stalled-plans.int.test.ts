import { afterEach, describe, expect, it } from "vitest";
import { isTerminal } from "@rein/contracts/run";
import type { ReinRuntime } from "@rein/runtime";
import { until } from "@rein/contracts/testing";
import { type RunningRoles, startRoles } from "@rein/controller";
import { type Harness, startHarness } from "./support/harness.ts";
import { HungCalls, hangingProvider, killRole } from "./support/lost-step-workers.ts";
import { probeGoal, probeScript, probeTool } from "./support/probe-run.ts";

// Planners killed and restarted with one-second locks on a loaded machine: sized generously, not a timing assertion.
describe("a plan job whose planner is killed past the stall limit", { timeout: 180_000 }, () => {
  let harness: Harness | undefined;
  const extraRoles: RunningRoles[] = [];
  let hung: HungCalls | undefined;
  afterEach(async () => {
    hung?.release();
    for (const role of extraRoles.splice(0)) await role.close(0);
    await harness?.close();
    harness = undefined;
  });

  /** The run's first plan job is taken by two planners in turn, each killed mid-call: with a stall limit of 1 it fails for good. */
  async function killTwice(resendsPerJob?: number): Promise<{ runId: string; planRuntime: ReinRuntime }> {
    harness = await startHarness(probeScript, [probeTool()], {
      config: {
        queues: { lockMs: 1_000, stalledIntervalMs: 1_000, plan: { maxStalledCount: 1 } },
        ...(resendsPerJob === undefined ? {} : { redrive: { resendsPerJob } }),
      },
    });
    const planRuntime = harness.roleRuntimes[1] as ReinRuntime;
    hung = new HungCalls(2);
    const planner = hangingProvider(harness.planner, hung);
    await killRole(harness.roles[1] as RunningRoles);
    const startPlanRole = () => {
      const role = startRoles(planRuntime, { roles: ["plan"], providers: { planner } });
      extraRoles.push(role);
      return role;
    };
    const runId = await harness.submit(probeGoal);
    for (let kill = 1; kill <= 2; kill += 1) {
      const role = startPlanRole();
      await until(`the planner's model call ${kill}`, () => (hung?.calls ?? 0) >= kill);
      await killRole(role);
    }
    startPlanRole();
    return { runId, planRuntime };
  }

  it("is sent again with the same job id, leaves no failed job, and its run ends done", async () => {
    const { runId, planRuntime } = await killTwice();
    const state = await harness?.waitFor(runId, (candidate) => candidate.status === "escalated" || isTerminal(candidate.status));
    expect(state?.status, state?.stopReason).toBe("done");
    const events = await planRuntime.trace.read(runId);
    expect(events.filter((event) => event.kind === "run.redriven").map((event) => event.payload)).toEqual([
      {
        cause: "worker_lost",
        reason: expect.stringMatching(/worker died or lost Redis 2 time/),
        jobs: [{ key: "plan 1", queue: "plan", jobId: `plan-${runId}-1`, resend: 1 }],
      },
    ]);
    expect(events.filter((event) => event.kind === "plan.requested").map((event) => event.payload.planNo)).toEqual([1, 2]);
    expect(await planRuntime.queues.plan.getFailedCount()).toBe(0);
  });

  it("past redrive.resendsPerJob escalates the run to a person with what happened and what to do, rather than failing it", async () => {
    const { runId } = await killTwice(0);
    const state = await harness?.waitFor(runId, (candidate) => candidate.status === "escalated" || isTerminal(candidate.status));
    expect(state?.status).toBe("escalated");
    expect(state?.stopReason).toMatch(/plan 1 job was lost: its worker died or lost Redis 2 time/);
    expect(state?.stopReason).toMatch(/redrive\.resendsPerJob.*planner processes' logs.*rein reply/);
  });
});
