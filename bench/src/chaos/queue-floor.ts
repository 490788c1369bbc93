import { defaultJobOptions, type Redis } from "@rein/runtime";
import { Queue } from "bullmq";
import type { BenchEnv } from "../bench-env.ts";
import { spawnBenchChild } from "../child-process.ts";
import { waitUntil } from "../wait-until.ts";
import { redisWork } from "./redis-work.ts";

/** What a number of queue jobs cost Redis: its CPU-seconds and its reads from clients. */
export interface QueueFloor {
  cpuSeconds: number;
  reads: number;
}

/**
 * What `jobs` no-op BullMQ jobs cost on this Redis: added 50 at a time, one
 * add each, with Rein's job options, as a load adds a run's jobs, and taken
 * by a worker in a process of its own at concurrency 50. What a run's queue
 * jobs alone cost, before anything Rein writes.
 */
export async function queueJobsCost(env: BenchEnv, admin: Redis, jobs: number): Promise<QueueFloor> {
  const runtime = env.runtime();
  const queue = new Queue("queue-floor", { connection: runtime.connection, prefix: runtime.keys.queuePrefix(), defaultJobOptions });
  const worker = spawnBenchChild("./role-process.ts", {
    ...env.childEnv,
    BENCH_ROLE: "raw",
    BENCH_QUEUE: "queue-floor",
    BENCH_CONCURRENCY: "50",
  });
  try {
    await worker.ready;
    const before = await redisWork(admin, []);
    for (let offset = 0; offset < jobs; offset += 50) {
      const batch = Array.from({ length: Math.min(50, jobs - offset) }, (_, index) => offset + index);
      await Promise.all(batch.map((index) => queue.add("noop", { index }, { jobId: `floor-${index}` })));
    }
    // Polled seldom: each poll is Redis work the floor would count.
    await waitUntil(async () => ((await queue.getJobCounts("completed")).completed ?? 0) >= jobs, 120_000, 250);
    const after = await redisWork(admin, []);
    return { cpuSeconds: after.cpuSeconds - before.cpuSeconds, reads: after.reads - before.reads };
  } finally {
    await worker.stop();
    await queue.close();
  }
}
