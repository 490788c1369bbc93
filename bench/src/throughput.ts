import { performance } from "node:perf_hooks";
import { PacketSigner } from "@rein/signing";
import { defaultJobOptions, QUEUE_NAMES } from "@rein/runtime";
import { Queue } from "bullmq";
import type { BenchEnv } from "./bench-env.ts";
import { spawnBenchChild } from "./child-process.ts";
import { noopStepJobs } from "./step-packets.ts";
import { waitUntil } from "./wait-until.ts";

export type ThroughputMode = "raw" | "rein";

/**
 * Jobs per second drained by `processes` worker processes at `concurrency`
 * each: the queue is paused, filled with `jobs` jobs, and the clock runs
 * from resume until all are completed. "raw" is a no-op BullMQ processor;
 * "rein" is the step role running no-op steps (signed packets, a scripted
 * model that answers at once, trace, step.started/step.finished events).
 */
export async function throughput(
  env: BenchEnv,
  mode: ThroughputMode,
  processes: number,
  concurrency: number,
  jobs: number,
): Promise<number> {
  const runtime = env.runtime();
  const name = mode === "raw" ? `raw-throughput-${processes}x${concurrency}` : QUEUE_NAMES.step;
  const queue = new Queue(name, { connection: runtime.connection, prefix: runtime.keys.queuePrefix(), defaultJobOptions });
  const children = Array.from({ length: processes }, () =>
    spawnBenchChild("./role-process.ts", {
      ...env.childEnv,
      BENCH_ROLE: mode === "raw" ? "raw" : "step",
      BENCH_QUEUE: name,
      BENCH_CONCURRENCY: String(concurrency),
    }),
  );
  try {
    await queue.pause();
    await Promise.all(children.map((child) => child.ready));
    const entries =
      mode === "raw"
        ? Array.from({ length: jobs }, (_, index) => ({ name: "noop", data: { index }, opts: { jobId: `raw-${index}` } }))
        : (await noopStepJobs(runtime, new PacketSigner(env.keys.privateKey), jobs)).map(({ jobId, data }) => ({
            name: "step",
            data,
            opts: { jobId },
          }));
    for (let start = 0; start < entries.length; start += 500) await queue.addBulk(entries.slice(start, start + 500));
    const before = await queue.getJobCounts("completed", "failed");
    const started = performance.now();
    await queue.resume();
    await waitUntil(
      async () => {
        const counts = await queue.getJobCounts("completed", "failed");
        if ((counts.failed ?? 0) > (before.failed ?? 0))
          throw new Error(`${mode} throughput: ${(counts.failed ?? 0) - (before.failed ?? 0)} job(s) failed`);
        return (counts.completed ?? 0) - (before.completed ?? 0) >= jobs;
      },
      120_000,
      5,
    );
    return jobs / ((performance.now() - started) / 1000);
  } finally {
    await Promise.all(children.map((child) => child.stop()));
    await queue.close();
  }
}
