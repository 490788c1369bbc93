import type { ReinRuntime } from "@rein/runtime";

/** Every key under the runtime's prefix with its TTL in seconds (-1: none). */
export async function keysWithTtl(runtime: ReinRuntime): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  let cursor = "0";
  do {
    const [next, keys] = await runtime.redis.scan(cursor, "MATCH", runtime.keys.pattern(), "COUNT", 1_000);
    cursor = next;
    for (const key of keys) found.set(key, await runtime.redis.ttl(key));
  } while (cursor !== "0");
  return found;
}

const QUEUE_BOOKKEEPING = [
  "meta",
  "id",
  "events",
  "completed",
  "failed",
  "stalled-check",
  "wait",
  "paused",
  "prioritized",
  "delayed",
  "active",
  "marker",
  "pc",
  "stalled",
  "limiter",
  "repeat",
  "de",
];

/**
 * Keys of the deployment, not of a run: a queue's own bookkeeping (bounded
 * by BullMQ: event streams are capped, finished-job sets by
 * `retention.jobs`), the run index and the approval index (each forgets a
 * run's entries once its keys are gone), the metrics totals and cursors,
 * and the lesson memory, which is meant to outlive runs.
 */
export function isDeploymentKey(runtime: ReinRuntime, key: string): boolean {
  const queues = queueShardOf(runtime, key);
  if (queues !== undefined) {
    const rest = key.slice(queues.length + 1).split(":");
    return rest.length === 2 && QUEUE_BOOKKEEPING.includes(rest[1] as string);
  }
  const { keys } = runtime;
  return (
    [keys.runIndex(), keys.runExpiries(), keys.lessonIndex(), keys.approvalIndex(), keys.metricsTotals(), keys.metricsCursors()].includes(
      key,
    ) || key.startsWith(`${keys.prefix}:lesson:`)
  );
}

/** A finished job of a queue: kept a while by age and count (`retention.jobs`) so a replayed effect is recognised. */
export function isQueueJobKey(runtime: ReinRuntime, key: string): boolean {
  return queueShardOf(runtime, key) !== undefined && !isDeploymentKey(runtime, key);
}

/** The BullMQ prefix of the queue shard `key` belongs to, if it is a queue's key. */
function queueShardOf(runtime: ReinRuntime, key: string): string | undefined {
  return runtime.keys.queuePrefixes().find((prefix) => key.startsWith(`${prefix}:`));
}
