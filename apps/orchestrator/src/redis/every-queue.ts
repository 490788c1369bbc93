import type { JobType, Queue } from "bullmq";
import { BuildId } from "@rein/contracts";
import { QUEUE_NAMES, type ReinRuntime, stepQueueName } from "@rein/runtime";

/** One queue by name, and its BullMQ queue on each shard (config `queues.shards`). */
export interface NamedQueue {
  name: string;
  shards: Queue[];
  /** The build whose step queue it is. */
  build?: string;
}

/** The role queues and the step queue of every build a role process was started with (`<p>:builds`), for views and metrics. */
export async function everyQueue(runtime: Pick<ReinRuntime, "queues" | "redis" | "keys">): Promise<NamedQueue[]> {
  const builds = await runtime.redis.smembers(runtime.keys.builds());
  const named: { name: string; build?: string }[] = [
    ...Object.values(QUEUE_NAMES).map((name) => ({ name })),
    ...builds
      .filter((build) => BuildId.safeParse(build).success)
      .sort()
      .map((build) => ({ name: stepQueueName(build), build })),
  ];
  const shards = Array.from({ length: runtime.queues.shardCount }, (_, shard) => shard);
  return named.map(({ name, build }) => ({
    name,
    shards: shards.map((shard) => runtime.queues.named(name, shard)).filter((queue) => queue !== undefined),
    ...(build ? { build } : {}),
  }));
}

/** A queue's job counts of `types`, summed over its shards. */
export async function jobCountsOf(queue: NamedQueue, ...types: JobType[]): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const shardCounts of await Promise.all(queue.shards.map((shard) => shard.getJobCounts(...types)))) {
    for (const [type, count] of Object.entries(shardCounts)) counts[type] = (counts[type] ?? 0) + count;
  }
  return counts;
}
