import { afterEach, describe, expect, it } from "vitest";
import { ApprovalVerifier, generateKeyPair, generatePacketKeys } from "@rein/signing";
import { ScriptedProvider } from "@rein/models";
import { queueJobOptions, ReinConfig } from "@rein/runtime";
import { createTestRuntime, type TestRuntime } from "@rein/runtime/testing";
import { type RunningRoles, startRoles, buildTooling, type Tooling } from "@rein/controller";

const ROLES = ["control", "plan", "step", "evaluate"] as const;

describe("lock, stall and retry settings", () => {
  let runtime: TestRuntime | undefined;
  let running: RunningRoles | undefined;
  let tooling: Tooling | undefined;
  afterEach(async () => {
    await running?.close(0);
    await tooling?.close();
    await runtime?.cleanup();
  });

  async function startAll(config: Parameters<typeof createTestRuntime>[0], stalled?: { lockDuration: number; stalledInterval: number }) {
    runtime = await createTestRuntime(config);
    const keys = generatePacketKeys();
    tooling = await buildTooling(runtime, [], new ApprovalVerifier(generateKeyPair().publicKey));
    const scripted = new ScriptedProvider({});
    running = startRoles(runtime, {
      roles: ROLES,
      packetPrivateKey: keys.privateKey,
      packetPublicKey: keys.publicKey,
      executor: tooling.executor,
      providers: { planner: scripted, worker: scripted, judge: scripted },
      stalled,
    });
    return running.workers.map((worker) => ({
      queue: worker.name,
      lockDuration: worker.opts.lockDuration,
      stalledInterval: worker.opts.stalledInterval,
      maxStalledCount: worker.opts.maxStalledCount,
    }));
  }

  it("reach every role alike from config, with a role's own entry over the shared ones", async () => {
    const workers = await startAll({
      queues: { lockMs: 12_000, stalledIntervalMs: 6_000, maxStalledCount: 7, step: { maxStalledCount: 20 } },
    });
    expect(workers).toEqual([
      { queue: "control", lockDuration: 12_000, stalledInterval: 6_000, maxStalledCount: 7 },
      { queue: "plan", lockDuration: 12_000, stalledInterval: 6_000, maxStalledCount: 7 },
      { queue: "step", lockDuration: 12_000, stalledInterval: 6_000, maxStalledCount: 20 },
      { queue: "evaluate", lockDuration: 12_000, stalledInterval: 6_000, maxStalledCount: 7 },
    ]);
  });

  it("default to the same for every role: a stall limit of 10, not BullMQ's 1", async () => {
    const workers = await startAll({});
    for (const worker of workers) expect(worker).toMatchObject({ lockDuration: 30_000, stalledInterval: 30_000, maxStalledCount: 10 });
  });

  it("take --lock-ms (the CLI's timing) over config in every role, planner and evaluator included", async () => {
    const workers = await startAll({}, { lockDuration: 2_000, stalledInterval: 2_000 });
    expect(workers.map((worker) => [worker.queue, worker.lockDuration, worker.stalledInterval])).toEqual(
      ROLES.map((role) => [role, 2_000, 2_000]),
    );
  });

  it("give each queue's jobs their tries from config, and finished jobs an age and count limit", () => {
    const jobs = queueJobOptions(
      ReinConfig.parse({
        queues: { attempts: 3, evaluate: { attempts: 2 } },
        retention: { jobs: { completedAgeSeconds: 600, completedCount: 50 } },
      }),
    );
    expect(jobs.control).toMatchObject({
      attempts: 3,
      removeOnComplete: { age: 600, count: 50 },
      removeOnFail: { age: 7 * 24 * 3600, count: 10_000 },
    });
    expect(jobs.evaluate.attempts).toBe(2);
  });
});
