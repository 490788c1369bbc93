import { access } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Worker } from "bullmq";
import type { ControlEvent } from "@rein/contracts/messages";
import { generatePacketKeys, PacketSigner, type PacketKeyPair } from "@rein/signing";
import { type ModelProvider, ScriptedProvider } from "@rein/models";
import { jobIds } from "@rein/runtime";
import { findTraceEvent } from "@rein/trace";
import { until } from "@rein/contracts/testing";
import { countingProvider } from "@rein/models/testing";
import { builtinTools } from "@rein/tools";
import { echoTool } from "@rein/tools/testing";
import { lapsingLock, recordSentControl, warningsLogged } from "@rein/runtime/testing";
import { startStepConsumer } from "../src/step-consumer.ts";
import { echoScript, packetOf, stepFixturePerTest } from "./support/step-fixture.ts";

const fixture = stepFixturePerTest();
let keys: PacketKeyPair;
let consumer: Worker | undefined;
let sent: ControlEvent[];
beforeEach(() => {
  keys = generatePacketKeys();
  sent = recordSentControl(fixture.runtime.queues);
});
afterEach(async () => {
  await consumer?.close(true);
  consumer = undefined;
});

/** Stores the run as intake reads it (status and steps), as the controller left it. */
async function storeRun(runId: string, status: string, phase: string): Promise<void> {
  await fixture.runtime.redis.hset(
    fixture.runtime.keys.run(runId),
    "state",
    JSON.stringify({ status, steps: [{ stepId: "step_1", attempt: 1, phase, resumes: 0 }] }),
  );
}

async function enqueue(runId: string, title: string): Promise<string> {
  const jobId = jobIds.step(runId, "step_1", 1);
  await fixture.runtime.queues.sendStep({ packet: new PacketSigner(keys.privateKey).sign(packetOf(runId, title).body) }, jobId);
  return jobId;
}

async function start(provider: ModelProvider, stalled?: { lockDuration: number }): Promise<Worker> {
  const deps = await fixture.deps(echoScript("unused", 0), "unused");
  consumer = startStepConsumer({
    runtime: fixture.runtime,
    packetPublicKey: keys.publicKey,
    provider,
    executor: deps.executor,
    concurrency: 1,
    stalled,
  });
  return consumer;
}

/** Sends a step job of a run stored as `status`, its step in `phase`, and waits until the consumer has completed the job. */
async function completedJob(runId: string, status: string, phase: string) {
  await storeRun(runId, status, phase);
  const provider = countingProvider(new ScriptedProvider(echoScript("Echo", 1)));
  const worker = await start(provider);
  const completed = new Promise<void>((resolve) => worker.once("completed", () => resolve()));
  await enqueue(runId, "Echo");
  await completed;
  return { provider, events: await fixture.runtime.trace.read(runId) };
}

describe("the step consumer's intake", () => {
  it("drops a step job whose run has already ended: traced, never executed, no event sent", async () => {
    const runId = "run_ended";
    const { provider, events } = await completedJob(runId, "done", "completed");
    expect(provider.calls).toBe(0);
    expect(sent).toEqual([]);
    expect(events.map((event) => event.kind)).toEqual(["step.dropped"]);
    expect(findTraceEvent(events, "step.dropped")?.payload.reason).toMatch(/already ended \(done\)/);
    expect(await fixture.runtime.redis.exists(fixture.runtime.keys.checkpoint(runId, "step_1"))).toBe(0);
  });

  it("drops a redelivered step job whose result the run already applied", async () => {
    const { provider, events } = await completedJob("run_applied", "evaluating", "evaluating");
    expect(provider.calls).toBe(0);
    expect(findTraceEvent(events, "step.dropped")?.payload.reason).toMatch(/evaluating: its result was already applied/);
  });

  it("refuses a packet altered after signing, though its run waits for the step: never executed, nothing claimed, the step errored", async () => {
    const runId = "run_altered";
    await storeRun(runId, "dispatching", "dispatched");
    const provider = countingProvider(new ScriptedProvider(echoScript("Echo", 1)));
    const worker = await start(provider);
    const completed = new Promise<void>((resolve) => worker.once("completed", () => resolve()));
    const signed = new PacketSigner(keys.privateKey).sign(packetOf(runId, "Echo").body);
    const altered = { ...signed, body: { ...signed.body, budget: { ...signed.body.budget, maxTurns: signed.body.budget.maxTurns + 100 } } };
    await fixture.runtime.queues.sendStep({ packet: altered }, jobIds.step(runId, "step_1", 1));
    await completed;
    expect(provider.calls).toBe(0);
    expect(sent.map((event) => event.type)).toEqual(["step.errored"]);
    const events = await fixture.runtime.trace.read(runId);
    expect(events.map((event) => event.kind)).toEqual(["packet.refused"]);
    expect(await fixture.runtime.redis.exists(fixture.runtime.keys.stepOwner(runId, "step_1"))).toBe(0);
  });

  it("runs a step job the run is waiting for", async () => {
    const runId = "run_live";
    await storeRun(runId, "dispatching", "dispatched");
    await start(countingProvider(new ScriptedProvider(echoScript("Echo", 2))));
    await enqueue(runId, "Echo");
    await until("step.finished", () => sent.some((event) => event.type === "step.finished"));
    expect(sent.map((event) => event.type)).toEqual(["step.finished"]);
  });
});

describe("a step worker whose job lock lapses", () => {
  it("stops before its next call, sends no result, and leaves the job for another worker", async () => {
    const runId = "run_lapsed";
    await storeRun(runId, "executing", "executing");
    const jobId = jobIds.step(runId, "step_1", 1);
    const lock = lapsingLock(fixture.runtime, "step", { runId, jobId });
    // During the second model call the lock vanishes; the call returns only once BullMQ has failed to renew it.
    const provider = countingProvider(new ScriptedProvider(echoScript("Echo", 5)), async (call) => {
      if (call === 2) await lock.vanish();
    });
    lock.watch(await start(provider, { lockDuration: 1000 }));
    const warnings = warningsLogged(fixture.runtime);
    await enqueue(runId, "Echo");
    await until("the worker to give the job up", () => warnings.includes("step job lost its lock; stopped without writing"));

    expect(provider.calls).toBe(2);
    expect(sent).toEqual([]);
    const events = await fixture.runtime.trace.read(runId);
    // Nothing of turn 2 was written: not its model call, and its tool call never started.
    expect(events.filter((event) => event.kind === "model.called")).toHaveLength(1);
    expect(events.filter((event) => event.kind === "tool.called")).toHaveLength(1);
    expect((await fixture.runtime.checkpoints.load(runId, "step_1", 1))?.turns).toBe(1);
    // Still active, not failed: the stall check hands it to the next worker, which resumes from turn 1.
    expect(await fixture.runtime.queues.step.getJobState(jobId)).toBe("active");
  });
});

describe("a step worker whose workspace root does not hold the run's workspace", () => {
  // The run was taken in on a machine whose workspaceRoot this worker does not share: its files are not here.
  it("fails a file tool's call with the reason, never makes the directory, and still runs a tool that touches no file", async () => {
    const runId = "run_elsewhere";
    await storeRun(runId, "dispatching", "dispatched");
    const provider = new ScriptedProvider({
      worker: [
        {
          match: "Read",
          turns: [
            { toolCalls: [{ name: echoTool.name, input: { i: 7 } }] },
            { toolCalls: [{ name: "read_file", input: { path: "notes.txt" } }] },
            { text: "Read the notes." },
          ],
        },
      ],
    });
    consumer = startStepConsumer({
      runtime: fixture.runtime,
      packetPublicKey: keys.publicKey,
      provider,
      executor: fixture.executor([echoTool, ...builtinTools()]),
      concurrency: 1,
    });
    const surface = [
      { name: echoTool.name, scope: {} },
      { name: "read_file", scope: { paths: ["**"] } },
    ];
    const { body } = packetOf(runId, "Read");
    const packet = new PacketSigner(keys.privateKey).sign({ ...body, surface, bounds: { ...body.bounds, surface } });
    await fixture.runtime.queues.sendStep({ packet }, jobIds.step(runId, "step_1", 1));
    await until("step.finished", () => sent.some((event) => event.type === "step.finished"));

    const events = await fixture.runtime.trace.read(runId);
    const executed = events.filter((event) => event.kind === "tool.executed");
    expect(executed.map((event) => [event.payload.tool, event.payload.status])).toEqual([[echoTool.name, "ok"]]);
    const refused = events.filter((event) => event.kind === "tool.refused");
    expect(refused.map((event) => event.payload.tool)).toEqual(["read_file"]);
    expect(refused[0]?.payload.error).toMatch(
      /workspace .*run_elsewhere of run run_elsewhere is not on this machine; expected .*workspaceRoot/,
    );
    await expect(access(join(fixture.runtime.config.workspaceRoot, runId))).rejects.toThrow(/ENOENT/);
  });
});
