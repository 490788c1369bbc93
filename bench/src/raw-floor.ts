import { performance } from "node:perf_hooks";
import { defaultJobOptions, type ReinRuntime } from "@rein/core";
import { Queue, Worker } from "bullmq";

/**
 * BullMQ alone: add a no-op job and wait for this process's worker to
 * complete it, one at a time. The floor the dispatch cycle is compared with.
 */
export async function rawRoundTrips(runtime: ReinRuntime, samples: number, warmup: number): Promise<number[]> {
  const options = { connection: runtime.connection, prefix: runtime.config.prefix };
  const queue = new Queue("raw-roundtrip", { ...options, defaultJobOptions });
  const worker = new Worker("raw-roundtrip", async () => {}, { ...options, concurrency: 1 });
  const waiting = new Map<string, () => void>();
  worker.on("completed", (job) => waiting.get(job.id ?? "")?.());
  await worker.waitUntilReady();
  const times: number[] = [];
  try {
    for (let index = 0; index < warmup + samples; index += 1) {
      const jobId = `raw-${index}`;
      const completed = new Promise<void>((resolve) => waiting.set(jobId, resolve));
      const started = performance.now();
      await queue.add("noop", { index }, { jobId });
      await completed;
      if (index >= warmup) times.push(performance.now() - started);
      waiting.delete(jobId);
    }
  } finally {
    await worker.close();
    await queue.close();
  }
  return times;
}

/** One Redis round trip (PING), in µs: what every sequential Redis call in a turn costs at least. */
export async function redisRoundTripMicros(runtime: ReinRuntime, samples: number): Promise<number> {
  const times: number[] = [];
  for (let index = 0; index < samples; index += 1) {
    const started = performance.now();
    await runtime.redis.ping();
    times.push((performance.now() - started) * 1000);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] as number;
}
