import { afterEach, describe, expect, it } from "vitest";
import { isTerminal, jobIds, type ReinConfigInput, type ReinRuntime, type RunState } from "@rein/core";
import { until } from "@rein/core/testing";
import { type RunningRoles, startRoles } from "../src/roles/start-roles.ts";
import { type Harness, startHarness } from "./support/harness.ts";
import { loseJob } from "./support/lose-job.ts";
import { probeGoal, probeScript, probeTool } from "./support/probe-run.ts";

/** A sweep every 200 ms of runs quiet for 500 ms: the defaults (10 s, 30 s) scaled down for a test. */
const FAST_REDRIVE: ReinConfigInput = { redrive: { intervalMs: 200, quietMs: 500 } };

// Every role of a run on a loaded machine: sized generously, not a timing assertion.
describe("a run whose next job vanished from the queue", { timeout: 120_000 }, () => {
  let harness: Harness | undefined;
  const extraRoles: RunningRoles[] = [];
  afterEach(async () => {
    for (const role of extraRoles.splice(0)) await role.close(0);
    await harness?.close();
    harness = undefined;
  });

  /** A harness whose step worker is stopped, so a step job waits in the queue until `startStepRole`. */
  async function withStepsHeld(config: ReinConfigInput) {
    const probes = { runs: 0 };
    const probe = probeTool({
      output: (key) => {
        probes.runs += 1;
        return `${key}: pending`;
      },
    });
    harness = await startHarness(probeScript, [probe], { config });
    await (harness.roles[2] as RunningRoles).close(0);
    const stepRuntime = harness.roleRuntimes[2] as ReinRuntime;
    const startStepRole = () => {
      extraRoles.push(startRoles(stepRuntime, { roles: ["step"], packetPublicKey: harness?.packetPublicKey, executor: harness?.tooling.executor, providers: { worker: harness?.worker } }));
    };
    return { probes, startStepRole };
  }

  async function ended(runtime: ReinRuntime, runId: string): Promise<RunState> {
    await until(`run ${runId} to end`, async () => isTerminal((await runtime.runs.require(runId)).status), 60_000);
    return runtime.runs.require(runId);
  }

  it("ends done once the sweep sends its lost step job again: traced as run.redriven, the step executed once", async () => {
    const { probes, startStepRole } = await withStepsHeld(FAST_REDRIVE);
    const { runtime } = harness as Harness;
    const runId = await (harness as Harness).submit(probeGoal);
    const jobId = jobIds.step(runId, "s1", 1);
    await until("the step job to wait in the queue", async () => (await runtime.queues.step.getJobState(jobId)) === "waiting");
    await loseJob(runtime, "step", jobId);
    startStepRole();

    const state = await ended(runtime, runId);
    expect(state.status, state.stopReason).toBe("done");
    const events = await runtime.trace.read(runId);
    const redriven = events.filter((event) => event.kind === "run.redriven");
    expect(redriven).toHaveLength(1);
    expect(JSON.stringify(redriven[0]?.payload)).toContain(jobId);
    expect(events.filter((event) => event.kind === "step.dispatched")).toHaveLength(1);
    expect(events.filter((event) => event.kind === "step.finished")).toHaveLength(1);
    expect(probes.runs).toBe(1);
  });
});
