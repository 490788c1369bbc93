import { afterEach, describe, expect, it } from "vitest";
import { generatePacketKeys } from "@rein/signing";
import { createRuntime, jobIds, type ReinRuntime } from "@rein/runtime";
import { createTestRuntime, type TestRuntime } from "@rein/runtime/testing";
import type { Job, Worker } from "bullmq";
import { startController } from "../src/control/controller.ts";
import { submitGoal } from "../src/intake/submit-goal.ts";
import { waitForRun } from "@rein/runtime/testing";

describe("controller under a concurrent writer", () => {
  let runtime: TestRuntime;
  let controlRuntime: ReinRuntime;
  let controller: Worker;

  afterEach(async () => {
    await controller?.close();
    await controlRuntime?.close();
    await runtime?.cleanup();
  });

  it("applies an event to the newer state when another writer advanced the run first, without spending a job attempt", async () => {
    runtime = await createTestRuntime();
    controlRuntime = createRuntime(runtime.config);
    // Another controller writes the run between this one's load and its compare-and-set, once.
    const load = controlRuntime.runs.get.bind(controlRuntime.runs);
    let raced = false;
    controlRuntime.runs.get = async (runId) => {
      const state = await load(runId);
      if (state && !raced) {
        raced = true;
        await runtime.runs.save({ ...state, version: state.version + 1 }, state.version);
      }
      return state;
    };
    const { runId } = await submitGoal(runtime, { text: "Say hello" }, { knownTools: [] });
    controller = startController({ runtime: controlRuntime, packetPrivateKey: generatePacketKeys().privateKey });
    const completed = new Promise<Job>((resolve) => controller.once("completed", resolve));

    const planning = await waitForRun(runtime, runId, (state) => state.planCount === 1);
    expect(raced).toBe(true);
    expect(planning.version).toBe(2);
    const events = await runtime.trace.read(runId);
    expect(events.filter((event) => event.kind === "plan.requested")).toHaveLength(1);
    const job = await completed;
    expect(job?.data.type).toBe("goal.submitted");
    // BullMQ counts the attempt that completed: one, not a failed try and a retry.
    expect(job?.attemptsMade).toBe(1);
    expect(await runtime.queues.plan.getJob(jobIds.plan(runId, 1))).toBeDefined();
  });
});
