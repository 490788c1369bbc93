import { afterEach, describe, expect, it } from "vitest";
import { isTerminal, type RunState } from "@rein/contracts/run";
import type { ModelProvider } from "@rein/models";
import { jobIds, type ReinConfigInput, type ReinRuntime, resultEventIds } from "@rein/runtime";
import { until } from "@rein/contracts/testing";
import { sweepLostJobs, type RunningRoles, startRoles } from "@rein/controller";
import { heldUntilRelease } from "./support/hanging-provider.ts";
import { type Harness, startHarness } from "./support/harness.ts";
import { loseJob } from "./support/lose-job.ts";
import { probeGoal, probeScript, probeTool } from "./support/probe-run.ts";

/** A sweep every 200 ms of runs quiet for 500 ms: the defaults (10 s, 30 s) scaled down for a test. */
const FAST_REDRIVE: ReinConfigInput = { redrive: { intervalMs: 200, quietMs: 500 } };
/** No sweep but the ones a test runs itself, at a time of its choosing. */
const OWN_SWEEPS: ReinConfigInput = { redrive: { enabled: false, quietMs: 500 } };
/**
 * A time at which every run of the test has stood still past the quiet
 * period, and past any check of an earlier sweep (which stamps a run with
 * its own time): each call is a minute after the last.
 */
let clock = Date.now();
const later = () => {
  clock = Math.max(clock, Date.now()) + 60_000;
  return clock;
};

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
    const startStepRole = (worker: ModelProvider | undefined = harness?.worker) => {
      extraRoles.push(
        startRoles(stepRuntime, {
          roles: ["step"],
          packetPublicKey: harness?.packetPublicKey,
          executor: harness?.tooling.executor,
          providers: { worker },
        }),
      );
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

  it("never sends again a job that is only slow: waiting, delayed or running", async () => {
    const { probes, startStepRole } = await withStepsHeld(OWN_SWEEPS);
    const { runtime } = harness as Harness;
    const controller = (harness as Harness).roleRuntimes[0] as ReinRuntime;
    const runId = await (harness as Harness).submit(probeGoal);
    const jobId = jobIds.step(runId, "s1", 1);
    const step = runtime.queues.step;
    const sweep = async () =>
      sweepLostJobs(controller, { holder: "test", now: later() }).finally(() => runtime.redis.del(runtime.keys.redriveLease()));
    await until("the step job to wait in the queue", async () => (await step.getJobState(jobId)) === "waiting");
    expect(await sweep()).toEqual({ swept: true, checked: 1, lost: [] });

    const base = `${runtime.keys.queuePrefix()}:step`;
    await runtime.redis
      .multi()
      .lrem(`${base}:wait`, 0, jobId)
      .zadd(`${base}:delayed`, Date.now() + 3_600_000, jobId)
      .exec();
    expect(await step.getJobState(jobId)).toBe("delayed");
    expect(await sweep()).toEqual({ swept: true, checked: 1, lost: [] });
    await (await step.getJob(jobId))?.promote();

    const worker = heldUntilRelease((harness as Harness).worker);
    startStepRole(worker);
    await until("the step's model call", () => worker.calls >= 1);
    expect(await step.getJobState(jobId)).toBe("active");
    expect(await sweep()).toEqual({ swept: true, checked: 1, lost: [] });
    worker.release();

    const state = await ended(runtime, runId);
    expect(state.status, state.stopReason).toBe("done");
    const events = await runtime.trace.read(runId);
    expect(events.filter((event) => event.kind === "run.redriven")).toEqual([]);
    expect(events.filter((event) => event.kind === "step.dispatched")).toHaveLength(1);
    expect(probes.runs).toBe(1);
  });

  it("is sent again at most once when two controllers sweep at once, or one sweeps again before the first report is applied", async () => {
    const { probes, startStepRole } = await withStepsHeld(OWN_SWEEPS);
    const { runtime } = harness as Harness;
    const [first, second] = [(harness as Harness).roleRuntimes[0] as ReinRuntime, (harness as Harness).roleRuntimes[1] as ReinRuntime];
    const runId = await (harness as Harness).submit(probeGoal);
    const jobId = jobIds.step(runId, "s1", 1);
    await until("the step job to wait in the queue", async () => (await runtime.queues.step.getJobState(jobId)) === "waiting");
    await loseJob(runtime, "step", jobId);
    // The controller takes no event meanwhile, so the second report lands while the first still waits.
    await runtime.queues.control.pause();

    const now = later();
    const reports = await Promise.all([sweepLostJobs(first, { holder: "first", now }), sweepLostJobs(second, { holder: "second", now })]);
    expect(reports.map((report) => report.swept).sort()).toEqual([false, true]);
    expect(reports.flatMap((report) => report.lost)).toEqual([{ runId, jobs: [`step s1 1 ${jobId}`] }]);
    // Past the lease (it lapsed mid-sweep, or the next interval came): the same loss is reported under the same event id.
    await runtime.redis.del(runtime.keys.redriveLease());
    expect((await sweepLostJobs(second, { holder: "second", now: later() })).lost).toHaveLength(1);
    const reported = (await runtime.queues.control.getJobs(["waiting", "paused", "prioritized"])).filter((job) => job.name === "jobs.lost");
    expect(reported).toHaveLength(1);

    await runtime.queues.control.resume();
    startStepRole();
    const state = await ended(runtime, runId);
    expect(state.status, state.stopReason).toBe("done");
    const events = await runtime.trace.read(runId);
    expect(events.filter((event) => event.kind === "run.redriven")).toHaveLength(1);
    expect(events.filter((event) => event.kind === "step.finished")).toHaveLength(1);
    expect(probes.runs).toBe(1);
  });

  it("sends a lost step evaluation again with the result its step.finished event kept, and the run ends done", async () => {
    harness = await startHarness(probeScript, [probeTool()], { config: FAST_REDRIVE });
    const { runtime } = harness;
    await (harness.roles[3] as RunningRoles).close(0);
    const runId = await harness.submit(probeGoal);
    // The harness's evaluator holds no packet key: it passes a step's result on to the controller, as done here.
    const resultJobId = jobIds.stepResult(resultEventIds.stepFinished(jobIds.step(runId, "s1", 1)));
    await until(
      "the step's result to wait in the evaluate queue",
      async () => (await runtime.queues.evaluate.getJobState(resultJobId)) === "waiting",
    );
    const resultJob = await runtime.queues.evaluate.getJob(resultJobId);
    await runtime.queues.sendControl(resultJob?.data);
    await resultJob?.remove();
    const jobId = jobIds.evaluate(runId, "s1", 1);
    await until("the evaluate job to wait in the queue", async () => (await runtime.queues.evaluate.getJobState(jobId)) === "waiting");
    await loseJob(runtime, "evaluate", jobId);
    extraRoles.push(startRoles(harness.roleRuntimes[3] as ReinRuntime, { roles: ["evaluate"], providers: { judge: harness.judge } }));

    const state = await ended(runtime, runId);
    expect(state.status, state.stopReason).toBe("done");
    const events = await runtime.trace.read(runId);
    expect(events.filter((event) => event.kind === "run.redriven").map((event) => event.payload)).toEqual([
      {
        cause: "vanished",
        reason: expect.stringContaining("not in its queue"),
        jobs: [{ key: "evaluate s1 1", queue: "evaluate", jobId, resend: 1 }],
      },
    ]);
    expect(events.filter((event) => event.kind === "verdict.ready")).toHaveLength(2);
  });

  it("schedules a lost deadline again, and sends a lost goal.submitted again to a run no controller took in", async () => {
    const { startStepRole } = await withStepsHeld(OWN_SWEEPS);
    const { runtime } = harness as Harness;
    const controller = (harness as Harness).roleRuntimes[0] as ReinRuntime;
    const control = runtime.queues.control;

    const running = await (harness as Harness).submit(probeGoal);
    const deadlineOf = () => runtime.redis.zscore(runtime.keys.runDeadlines(), running);
    await until(
      "the step job to wait in the queue",
      async () => (await runtime.queues.step.getJobState(jobIds.step(running, "s1", 1))) === "waiting",
    );
    const scheduled = Number(await deadlineOf());
    expect(scheduled).toBeGreaterThan(Date.now());
    // Lost as a failover loses a write: the entry is gone.
    await runtime.redis.zrem(runtime.keys.runDeadlines(), running);
    expect((await sweepLostJobs(controller, { holder: "test", now: later() })).lost).toEqual([{ runId: running, jobs: ["deadline"] }]);
    await until("the deadline to be scheduled again", async () => (await deadlineOf()) !== null);
    // For what was left of the run's wall time, not a whole budget from now.
    expect(Math.abs(Number(await deadlineOf()) - scheduled)).toBeLessThan(5_000);

    await control.pause();
    const unsubmitted = await (harness as Harness).submit(probeGoal);
    await loseJob(runtime, "control", jobIds.control(`submitted-${unsubmitted}`));
    await control.resume();
    await runtime.redis.del(runtime.keys.redriveLease());
    expect((await sweepLostJobs(controller, { holder: "test", now: later() })).lost).toEqual([
      { runId: unsubmitted, jobs: ["goal.submitted"] },
    ]);

    startStepRole();
    for (const runId of [running, unsubmitted]) {
      const state = await ended(runtime, runId);
      expect(state.status, state.stopReason).toBe("done");
    }
    const redriven = (await runtime.trace.read(unsubmitted)).filter((event) => event.kind === "run.redriven");
    expect(redriven.map((event) => event.payload.jobs)).toEqual([
      [{ key: "goal.submitted", queue: "control", jobId: `control-submitted-${unsubmitted}`, resend: 1 }],
    ]);
  });
});
