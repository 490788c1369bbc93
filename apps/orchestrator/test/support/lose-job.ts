import type { ReinRuntime } from "@rein/runtime";

/**
 * Removes a job from Redis as a lost write leaves it: its hash and its
 * entry in whichever list or set held it are gone, with nothing in BullMQ's
 * own bookkeeping saying it ever existed (a master that acknowledged the add
 * and died before its replica had it).
 */
export async function loseJob(runtime: Pick<ReinRuntime, "redis" | "keys">, queue: string, jobId: string): Promise<void> {
  const base = `${runtime.keys.queuePrefix()}:${queue}`;
  // One slot: every key of a queue carries `{queues}`.
  await runtime.redis
    .multi()
    .del(`${base}:${jobId}`)
    .lrem(`${base}:wait`, 0, jobId)
    .lrem(`${base}:paused`, 0, jobId)
    .zrem(`${base}:prioritized`, jobId)
    .zrem(`${base}:delayed`, jobId)
    .exec();
}
