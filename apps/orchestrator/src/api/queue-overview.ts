import type { RateSnapshot } from "@rein/models/rate-limit";
import type { ReinRuntime } from "@rein/runtime";
import { type PublishedWorker, readWorkerStatus } from "@rein/controller";
import { fleetRateBudgets } from "../rate-limit/fleet-rate-budgets.ts";
import { everyQueue, jobCountsOf } from "../redis/every-queue.ts";

export interface QueueDepth {
  queue: string;
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
  /** Waiting with a priority (BullMQ keeps them apart from `waiting`). */
  prioritized: number;
}

export interface QueueOverview {
  queues: QueueDepth[];
  /** Role processes that published their status within the last 30 s. */
  workers: (Omit<PublishedWorker, "at"> & { lastHeartbeat: string })[];
  /** Each limited provider and model: budget configured and learned, use now, grants, waits and 429s (the fleet's, from Redis). */
  rateLimits: RateSnapshot[];
}

/**
 * `GET /queues`: each queue's job counts (BullMQ getJobCounts, over its shards), the step queue
 * of every build still at work among them, the workers seen recently and the fleet's rate budgets.
 */
export async function queueOverview(runtime: ReinRuntime): Promise<QueueOverview> {
  const named = await everyQueue(runtime);
  const [queues, workers, rateLimits] = await Promise.all([
    Promise.all(
      named.map(async (queue): Promise<QueueDepth> => {
        const counts = await jobCountsOf(queue, "waiting", "active", "delayed", "failed", "prioritized");
        return {
          queue: queue.name,
          waiting: counts.waiting ?? 0,
          active: counts.active ?? 0,
          delayed: counts.delayed ?? 0,
          failed: counts.failed ?? 0,
          prioritized: counts.prioritized ?? 0,
        };
      }),
    ),
    readWorkerStatus(runtime),
    fleetRateBudgets(runtime),
  ]);
  // A build's step queue stays in view while it holds a job or a worker announces the build: a drained, retired build's goes.
  const announced = new Set(workers.map((worker) => worker.build));
  const shown = queues.filter((depth, index) => {
    const build = named[index]?.build;
    return !build || announced.has(build) || depth.waiting + depth.active + depth.delayed + depth.failed + depth.prioritized > 0;
  });
  return {
    queues: shown,
    workers: workers.map(({ at, ...worker }) => ({ ...worker, lastHeartbeat: new Date(at).toISOString() })),
    rateLimits,
  };
}
