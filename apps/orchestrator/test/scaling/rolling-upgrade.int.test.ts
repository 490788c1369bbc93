import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GoalInput } from "@rein/contracts";
import type { RunState, TraceEvent } from "@rein/contracts/run";
import { type ModelProvider, type ModelScriptInput, ScriptedProvider } from "@rein/models";
import { plannerOfSteps } from "@rein/models/testing";
import { createRuntime, type ReinRuntime } from "@rein/runtime";
import { until } from "@rein/contracts/testing";
import { type RunningRoles, startRoles } from "@rein/controller";
import { type Harness, startHarness } from "../support/harness.ts";
import { killRole } from "../support/lost-step-workers.ts";
import { probeTool } from "../support/probe-run.ts";
import { queueOverview } from "../../src/api/queue-overview.ts";

const probeStep = (title: string, objective: string) => ({
  title,
  objective,
  tools: ["probe"],
  output_contract: { description: "one line", format: "text" as const },
});
const answer = {
  answer: "the probe reports pending",
  claims: [{ text: "the probe reports pending", evidence: ["{{evidence:probe}}"] }],
  gaps: [],
};
const probing = (match: string) => ({ match, turns: [{ toolCalls: [{ name: "probe", input: {} }] }, { text: "status: pending" }] });

const OLD_RUN: GoalInput = { text: "Probe the status twice, before and during the upgrade", tools: [{ name: "probe" }] };
const NEW_RUN: GoalInput = { text: "Probe the status once, after the upgrade", tools: [{ name: "probe" }] };
const script: ModelScriptInput = {
  planner: [
    ...plannerOfSteps(
      [
        probeStep("Probe first", "Read the status with probe once (HELD until the upgrade)."),
        probeStep("Probe second", "Read the status with probe once more."),
      ],
      answer,
      OLD_RUN.text,
    ),
    ...plannerOfSteps([probeStep("Probe after", "Read the status with probe once.")], answer, NEW_RUN.text),
  ],
  worker: [probing("Probe first"), probing("Probe second"), probing("Probe after")],
};

/** A worker model whose call for the step marked HELD waits until `release`: the old run is mid-step while the fleet is upgraded. */
function heldWorker(provider: ModelProvider) {
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let held = false;
  const model: ModelProvider = {
    name: provider.name,
    kind: provider.kind,
    model: provider.model,
    complete: async (...args: Parameters<ModelProvider["complete"]>) => {
      if (JSON.stringify(args[0].messages).includes("HELD")) {
        held = true;
        await released;
      }
      return provider.complete(...args);
    },
  };
  return { model, release: () => release(), isHeld: () => held };
}

const workerCalls = (events: readonly TraceEvent[]) =>
  events
    .filter((event) => event.kind === "model.called" && event.payload.role === "worker")
    .map((event) => [event.stepId, event.payload.provider]);

// A rolling upgrade as an operator does it: the v2 controller and step worker start, the v1 controller stops, the v1 step worker stays to drain.
describe("a rolling upgrade between builds", { timeout: 180_000 }, () => {
  let harness: Harness;
  let held: ReturnType<typeof heldWorker>;
  const upgraded: RunningRoles[] = [];
  const upgradedRuntimes: ReinRuntime[] = [];
  let oldRun: RunState;
  let newRun: RunState;

  beforeAll(async () => {
    held = heldWorker(new ScriptedProvider(script, { name: "worker-v1" }));
    harness = await startHarness(script, [probeTool()], { worker: held.model, config: { buildId: "v1" } });
    const oldRunId = await harness.submit(OLD_RUN);
    await until("the old run's first step on the v1 worker", held.isHeld, 60_000);

    const v2 = { ...harness.runtime.config, buildId: "v2" };
    const controlRuntime = createRuntime(v2);
    const stepRuntime = createRuntime(v2);
    upgradedRuntimes.push(controlRuntime, stepRuntime);
    upgraded.push(
      startRoles(stepRuntime, {
        roles: ["step"],
        packetPublicKey: harness.packetPublicKey,
        executor: harness.tooling.executor,
        providers: { worker: new ScriptedProvider(script, { name: "worker-v2" }) },
      }),
      startRoles(controlRuntime, { roles: ["control"], packetPrivateKey: harness.packetPrivateKey }),
    );
    await killRole(harness.roles[0] as RunningRoles);

    const newRunId = await harness.submit(NEW_RUN);
    newRun = await harness.waitFor(newRunId);
    held.release();
    oldRun = await harness.waitFor(oldRunId);
  }, 180_000);
  afterAll(async () => {
    held?.release();
    for (const roles of upgraded) await roles.close(0);
    for (const runtime of upgradedRuntimes) await runtime.close();
    await harness?.close();
  });

  it("keeps the run started under v1 on v1's workers, its next step dispatched after the upgrade included", async () => {
    expect(oldRun.status, oldRun.stopReason).toBe("done");
    expect(oldRun.build).toBe("v1");
    expect(workerCalls(await harness.runtime.trace.read(oldRun.runId))).toEqual([
      ["s1", "worker-v1"],
      ["s1", "worker-v1"],
      ["s2", "worker-v1"],
      ["s2", "worker-v1"],
    ]);
  });

  it("starts a run submitted after the upgrade under v2, on v2's workers only", async () => {
    expect(newRun.status, newRun.stopReason).toBe("done");
    expect(newRun.build).toBe("v2");
    expect(workerCalls(await harness.runtime.trace.read(newRun.runId))).toEqual([
      ["s1", "worker-v2"],
      ["s1", "worker-v2"],
    ]);
  });

  it("keeps each build's steps in its own queue", async () => {
    const stepQueues = await Promise.all(
      ["v1", "v2"].map(async (build) => (await harness.runtime.queues.stepOf(build).getJobs(["completed"])).map((job) => job.id)),
    );
    expect(stepQueues[0]).toEqual(expect.arrayContaining([`step-${oldRun.runId}-s1-1`, `step-${oldRun.runId}-s2-1`]));
    expect(stepQueues[1]).toEqual([`step-${newRun.runId}-s1-1`]);
  });

  it("shows each build's step queue and each worker's build in the queues view", async () => {
    const overview = await queueOverview(harness.runtime);
    expect(overview.queues.map((queue) => queue.queue)).toEqual(expect.arrayContaining(["step", "step.v1", "step.v2"]));
    const stepWorkers = overview.workers.filter((worker) => worker.roles.includes("step"));
    expect(stepWorkers.map((worker) => worker.build).sort()).toEqual(["v1", "v2"]);
  });

  it("leaves out a retired build's step queue while it is empty and no worker announces that build", async () => {
    const { runtime } = harness;
    await runtime.redis.sadd(runtime.keys.builds(), "v0");
    expect((await queueOverview(runtime)).queues.map((queue) => queue.queue)).not.toContain("step.v0");
    // A job still waiting there is something an operator must see: no worker of its build is left to take it.
    await runtime.queues.stepOf("v0").add("step", { stranded: true }, { jobId: "stranded-step" });
    const stranded = (await queueOverview(runtime)).queues.find((queue) => queue.queue === "step.v0");
    expect(stranded).toMatchObject({ waiting: 1 });
    await runtime.queues.stepOf("v0").remove("stranded-step");
  });
});

describe("a build that declares an earlier one compatible", { timeout: 180_000 }, () => {
  let harness: Harness;
  const upgraded: RunningRoles[] = [];
  let stepRuntime: ReinRuntime;

  beforeAll(async () => {
    harness = await startHarness(script, [probeTool()], { config: { buildId: "v1" } });
    // The v1 step workers are gone; a v1.1 worker that says v1's runs are its to run takes over.
    await killRole(harness.roles[2] as RunningRoles);
    stepRuntime = createRuntime({ ...harness.runtime.config, buildId: "v1.1", compatibleBuilds: ["v1"] });
    upgraded.push(
      startRoles(stepRuntime, {
        roles: ["step"],
        packetPublicKey: harness.packetPublicKey,
        executor: harness.tooling.executor,
        providers: { worker: new ScriptedProvider(script, { name: "worker-v1.1" }) },
      }),
    );
  }, 180_000);
  afterAll(async () => {
    for (const roles of upgraded) await roles.close(0);
    await stepRuntime?.close();
    await harness?.close();
  });

  it("takes the steps of runs started under that build", async () => {
    const run = await harness.waitFor(await harness.submit(NEW_RUN));
    expect(run.status, run.stopReason).toBe("done");
    expect(run.build).toBe("v1");
    expect(workerCalls(await harness.runtime.trace.read(run.runId))).toEqual([
      ["s1", "worker-v1.1"],
      ["s1", "worker-v1.1"],
    ]);
  });
});
