import { afterEach, describe, expect, it } from "vitest";
import { type Plan, StepSpec, zeroUsage } from "@rein/contracts";
import { generatePacketKeys } from "@rein/signing";
import { createRuntime, type ReinRuntime } from "@rein/runtime";
import { createTestRuntime, type TestRuntime } from "@rein/runtime/testing";
import type { Worker } from "bullmq";
import { startController } from "../src/control/controller.ts";
import { submitGoal } from "../src/intake/submit-goal.ts";
import { waitForRun } from "@rein/runtime/testing";

const plan: Plan = {
  done: false,
  current_step: StepSpec.parse({ title: "Say hello", objective: "Say hello to the user" }),
  next_steps: [],
  risks: [],
};

describe("controller keeping the state it wrote for the run's next event", () => {
  let runtime: TestRuntime;
  let controlRuntime: ReinRuntime;
  let controller: Worker;
  let reads: string[];

  const start = async () => {
    runtime = await createTestRuntime();
    controlRuntime = createRuntime(runtime.config);
    reads = [];
    const load = controlRuntime.runs.get.bind(controlRuntime.runs);
    controlRuntime.runs.get = async (runId) => {
      reads.push(runId);
      return load(runId);
    };
    const { runId } = await submitGoal(runtime, { text: "Say hello" }, { knownTools: [] });
    controller = startController({ runtime: controlRuntime, packetPrivateKey: generatePacketKeys().privateKey });
    return { runId, planning: await waitForRun(runtime, runId, (state) => state.planCount === 1) };
  };
  const sendPlan = (runId: string) =>
    runtime.queues.sendControl({
      type: "plan.ready",
      eventId: `planned-${runId}`,
      runId,
      planNo: 1,
      plan,
      usage: zeroUsage(),
      lessonsUsed: [],
    });

  afterEach(async () => {
    await controller?.close();
    await controlRuntime?.close();
    await runtime?.cleanup();
  });

  it("applies the run's next event to the state it wrote, without reading the run again", async () => {
    const { runId } = await start();
    expect(reads).toEqual([runId]);
    await sendPlan(runId);
    const dispatching = await waitForRun(runtime, runId, (state) => state.status === "dispatching");
    expect(dispatching.version).toBe(2);
    expect(dispatching.steps.map((step) => step.phase)).toEqual(["dispatched"]);
    expect(reads).toEqual([runId]);
  });

  it("applies the next event to the newer state when another writer advanced the run after it wrote", async () => {
    const { runId, planning } = await start();
    // Another controller writes the run between this one's two events.
    await runtime.runs.save({ ...planning, version: planning.version + 1, instruction: "Answer in French" }, planning.version);
    await sendPlan(runId);
    const dispatching = await waitForRun(runtime, runId, (state) => state.status === "dispatching");
    expect(dispatching.version).toBe(3);
    expect(dispatching.instruction).toBe("Answer in French");
    expect(dispatching.appliedEvents.filter((eventId) => eventId === `planned-${runId}`)).toHaveLength(1);
    const traced = await runtime.trace.read(runId);
    expect(traced.filter((event) => event.kind === "plan.ready")).toHaveLength(1);
  });
});
