import { performance } from "node:perf_hooks";
import { zeroUsage } from "@rein/contracts";
import { ScriptedProvider } from "@rein/models";
import { exportPacketKeys } from "@rein/signing";
import { defaultJobOptions } from "@rein/runtime";
import { startRoles, submitGoal } from "@rein/orchestrator";
import { Queue, QueueEvents, Worker } from "bullmq";
import type { BenchEnv } from "./bench-env.ts";
import { spawnBenchChild } from "./child-process.ts";
import { noopGoal, noopPlan } from "./scripts.ts";
import { onStepResultApplied } from "./step-applied.ts";
import { waitUntil } from "./wait-until.ts";

export interface DispatchSamples {
  /** ms from the controller starting to enqueue a step to the step's result applied (by the evaluate role). */
  rein: number[];
  /** ms from adding a no-op job to seeing it completed. */
  raw: number[];
  /**
   * ms from adding a job to a second job, added by the first one's worker
   * (in the other process), being taken by a worker in this process: the
   * two queue hops of Rein's cycle (the step, then its result) with none of
   * Rein's work.
   */
  relay: number[];
}

/**
 * The dispatch cycle and its floor, interleaved round by round. Both floor
 * and Rein have their worker in a process of its own (concurrency 1):
 * raw is a BullMQ add → completed round trip (completion seen through
 * QueueEvents, as a producer would); relay is its two-hop counterpart;
 * Rein is the controller in this process enqueueing a step → the step role
 * in the other process running it with a no-op model → this process's
 * evaluate role having applied `step.finished`. The bench plays the
 * planner, so a step starts exactly when it hands over a plan.
 */
export async function dispatchCycles(env: BenchEnv, rounds: number, perRound: number, warmup: number): Promise<DispatchSamples> {
  const control = env.runtime();
  const intake = env.runtime();
  const options = { connection: control.connection, prefix: control.keys.queuePrefix() };
  const rawQueue = new Queue("raw-roundtrip", { ...options, defaultJobOptions });
  const rawEvents = new QueueEvents("raw-roundtrip", options);
  const childEnv = { ...env.childEnv, BENCH_CONCURRENCY: "1", REIN_PACKET_PRIVATE_KEY: exportPacketKeys(env.keys).privateKeyPem };
  const rawWorker = spawnBenchChild("./role-process.ts", { ...childEnv, BENCH_ROLE: "raw", BENCH_QUEUE: "raw-roundtrip" });
  const relayQueue = new Queue("relay-first", { ...options, defaultJobOptions });
  const relayWorker = spawnBenchChild("./role-process.ts", {
    ...childEnv,
    BENCH_ROLE: "relay",
    BENCH_QUEUE: "relay-first",
    BENCH_NEXT_QUEUE: "relay-second",
  });
  const relayTaken = new Map<string, () => void>();
  const relayEnd = new Worker(
    "relay-second",
    async (job) => {
      relayTaken.get(job.id ?? "")?.();
    },
    options,
  );
  const stepWorker = spawnBenchChild("./role-process.ts", { ...childEnv, BENCH_ROLE: "step" });

  const enqueued = new Map<string, number>();
  const waiting = new Map<string, { resolve: (applied: number) => void; reject: (error: Error) => void }>();
  const sendStep = control.queues.sendStep.bind(control.queues);
  // Instrumentation only: the moment this controller starts adding a run's step job.
  control.queues.sendStep = (job, jobId, build) => {
    enqueued.set(job.packet.body.runId, performance.now());
    return sendStep(job, jobId, build);
  };
  onStepResultApplied(control, (runId) => waiting.get(runId)?.resolve(performance.now()));
  // The evaluate role applies a step's result (and then judges it, which the cycle does not wait for).
  const controller = startRoles(control, {
    roles: ["control", "evaluate"],
    packetPrivateKey: env.keys.privateKey,
    providers: { judge: new ScriptedProvider({}) },
  });
  // A broken controller or evaluator must stop the bench with its reason, not leave it waiting.
  for (const worker of controller.workers) {
    worker.on("failed", (job, error) => {
      if (job) waiting.get((job.data as { runId: string }).runId)?.reject(new Error(`${worker.name} failed ${job.name}: ${error.message}`));
    });
  }
  const rawDone = new Map<string, () => void>();
  rawEvents.on("completed", ({ jobId }) => rawDone.get(jobId)?.());

  try {
    await Promise.all([rawWorker.ready, relayWorker.ready, stepWorker.ready, rawEvents.waitUntilReady(), relayEnd.waitUntilReady()]);
    const total = rounds * perRound + warmup;
    const runIds = await Promise.all(
      Array.from({ length: total }, async () => (await submitGoal(intake, noopGoal, { knownTools: [] })).runId),
    );
    await waitUntil(async () =>
      (await Promise.all(runIds.map((runId) => intake.runs.require(runId)))).every((state) => state.planCount === 1),
    );

    const reinCycle = async (runId: string): Promise<number> => {
      const applied = new Promise<number>((resolve, reject) => waiting.set(runId, { resolve, reject }));
      await intake.queues.sendControl({
        type: "plan.ready",
        eventId: `bench-planned-${runId}`,
        runId,
        planNo: 1,
        plan: noopPlan("No-op step"),
        usage: zeroUsage(),
        lessonsUsed: [],
      });
      const end = await applied;
      return end - (enqueued.get(runId) ?? Number.NaN);
    };
    const rawCycle = jobCycle(rawQueue, rawDone);
    const relayCycle = jobCycle(relayQueue, relayTaken);

    const samples: DispatchSamples = { rein: [], raw: [], relay: [] };
    let next = 0;
    for (let index = 0; index < warmup; index += 1) {
      await rawCycle();
      await relayCycle();
      await reinCycle(runIds[next++] as string);
    }
    for (let round = 0; round < rounds; round += 1) {
      for (let index = 0; index < perRound; index += 1) samples.raw.push(await rawCycle());
      for (let index = 0; index < perRound; index += 1) samples.relay.push(await relayCycle());
      for (let index = 0; index < perRound; index += 1) samples.rein.push(await reinCycle(runIds[next++] as string));
    }
    return samples;
  } finally {
    await controller.close();
    await Promise.all([rawWorker.stop(), relayWorker.stop(), stepWorker.stop()]);
    await relayEnd.close();
    await rawEvents.close();
    await Promise.all([rawQueue.close(), relayQueue.close()]);
  }
}

/** A timed no-op job on `queue`: ms from adding it to its id's callback in `seen` being called. */
function jobCycle(queue: Queue, seen: Map<string, () => void>): () => Promise<number> {
  let index = 0;
  return async () => {
    const jobId = `${queue.name}-${index++}`;
    const reached = new Promise<void>((resolve) => seen.set(jobId, resolve));
    const started = performance.now();
    await queue.add("noop", { jobId }, { jobId });
    await reached;
    seen.delete(jobId);
    return performance.now() - started;
  };
}
