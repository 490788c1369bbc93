import { afterEach, describe, expect, it } from "vitest";
import type { RunState } from "@rein/contracts/run";
import { jobIds, QUEUE_NAMES, resultEventIds } from "@rein/runtime";
import { createTestRuntime, type TestRuntime } from "@rein/runtime/testing";
import { retireRun } from "../src/control/retire-run.ts";
import { submitGoal } from "../src/intake/submit-goal.ts";
import { step } from "../src/testing/transition-fixtures.ts";

describe("retiring a run's finished jobs", () => {
  let runtime: TestRuntime;
  afterEach(async () => {
    await runtime?.cleanup();
  });

  /** A run whose step s1 is on its second attempt; its evaluations and results, as the state names them. */
  const endedRun = async (): Promise<RunState> => {
    runtime = await createTestRuntime({ queues: { shards: 3 } });
    const { runId } = await submitGoal(runtime, { text: "Say hello" }, { knownTools: [] });
    const state = await runtime.runs.require(runId);
    return { ...state, status: "done", steps: [step("completed", { attempt: 2 })] };
  };
  const queued = async (state: RunState, queue: "control" | "evaluate", jobId: string) => {
    await runtime.queues.ofRun(QUEUE_NAMES[queue], state.runId).add("test", { runId: state.runId }, { jobId });
    return jobId;
  };
  const left = async (state: RunState, jobs: readonly [queue: "control" | "evaluate", jobId: string][]) => {
    const found = await Promise.all(jobs.map(([queue, jobId]) => runtime.queues.ofRun(QUEUE_NAMES[queue], state.runId).getJob(jobId)));
    return jobs.filter((_job, index) => found[index] !== undefined).map(([, jobId]) => jobId);
  };

  it("removes the one evaluation that went through its queue among those handed over in process, and every step result", async () => {
    const state = await endedRun();
    const finished = [1, 2].map((attempt) => resultEventIds.stepFinished(jobIds.step(state.runId, "s1", attempt, 0)));
    const jobs: [queue: "control" | "evaluate", jobId: string][] = [
      ["evaluate", await queued(state, "evaluate", jobIds.stepResult(finished[0] as string))],
      ["evaluate", await queued(state, "evaluate", jobIds.stepResult(finished[1] as string))],
      // The second attempt's evaluation was queued (no slot in process); the first's was handed over and never was.
      ["evaluate", await queued(state, "evaluate", jobIds.evaluate(state.runId, "s1", 2))],
    ];
    expect(await left(state, jobs)).toHaveLength(3);

    await retireRun(runtime, state);

    expect(await left(state, jobs)).toEqual([]);
  });

  it("removes a result passed on to the control queue when no evaluation was queued", async () => {
    const state = await endedRun();
    const finished = resultEventIds.stepFinished(jobIds.step(state.runId, "s1", 2, 0));
    const jobs: [queue: "control" | "evaluate", jobId: string][] = [
      ["evaluate", await queued(state, "evaluate", jobIds.stepResult(finished))],
      ["control", await queued(state, "control", jobIds.control(finished))],
    ];

    await retireRun(runtime, state);

    expect(await left(state, jobs)).toEqual([]);
  });
});
