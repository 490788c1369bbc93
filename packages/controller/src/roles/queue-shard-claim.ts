import { ReinError } from "@rein/contracts";
import type { ReinRuntime } from "@rein/runtime";

/**
 * Records the deployment's `queues.shards` in Redis when a role process
 * starts, and refuses another count while runs are in flight: each run's
 * jobs sit on its shard of the count it was started under, which consumers
 * of another count never read. With no run in flight the count changes,
 * and the change is logged.
 */
export async function claimQueueShards(runtime: Pick<ReinRuntime, "config" | "keys" | "logger" | "redis">): Promise<void> {
  const { redis, keys } = runtime;
  const wanted = String(runtime.config.queues.shards);
  const stored = await redis.get(keys.queueShardCount());
  if (stored === wanted) return;
  if (stored === null) {
    await redis.set(keys.queueShardCount(), wanted, "NX");
    return claimQueueShards(runtime);
  }
  const inFlight = await redis.zcard(keys.activeRuns());
  if (inFlight > 0) {
    throw new ReinError(
      "config_invalid",
      `queues.shards is ${wanted} here but ${stored} on this Redis, where ${inFlight} run(s) in flight have their jobs on those ${stored} shard(s); ` +
        `expected queues.shards ${stored}, or no run in flight when every role process restarts with the new count (docs/scaling.md)`,
    );
  }
  await redis.set(keys.queueShardCount(), wanted);
  runtime.logger.warn({ from: Number(stored), to: Number(wanted) }, "queue shard count changed; no run was in flight");
}
