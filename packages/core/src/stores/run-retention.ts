import type { RunState } from "../contracts/run-state.ts";
import type { RedisKeys } from "../redis/keys.ts";
import type { RedisClient } from "../redis/redis-client.ts";
import { checkpointKeys } from "./checkpoint-store.ts";

/**
 * The keys that hold one run: state, trace (stream, sequence, prompt
 * copies, OpenTelemetry context), tool cache, artifacts and their index, and each step's
 * checkpoint. Idempotency records and approvals are written with a TTL of
 * their own; BullMQ jobs are removed by the queues' `retention.jobs`.
 */
export async function runKeysOf(redis: RedisClient, keys: RedisKeys, state: Pick<RunState, "runId" | "steps">): Promise<string[]> {
  const { runId } = state;
  const artifactIds = await redis.smembers(keys.runArtifacts(runId));
  return [
    keys.run(runId),
    keys.trace(runId),
    keys.traceSeq(runId),
    keys.traceBlobs(runId),
    keys.traceContext(runId),
    keys.toolCache(runId),
    keys.runArtifacts(runId),
    ...artifactIds.map((artifactId) => keys.artifact(artifactId)),
    ...state.steps.flatMap((step) => checkpointKeys(keys, runId, step.stepId)),
  ];
}

/**
 * Gives each existing key a TTL of at most `ttlSeconds`: a key without one
 * gets it, a key whose own TTL is shorter (a trace or artifact TTL from
 * config) keeps its own. Per key rather than one script, so keys of
 * different cluster slots (artifacts) are fine.
 */
export async function expireWithin(redis: RedisClient, keys: readonly string[], ttlSeconds: number): Promise<void> {
  // One command per key, sent together: a pipeline on Redis Cluster must stay in one slot, and artifacts do not.
  const ttls = await Promise.all(keys.map((key) => redis.ttl(key)));
  await Promise.all(keys.filter((_, index) => ttls[index] === -1 || (ttls[index] ?? -2) > ttlSeconds).map((key) => redis.expire(key, ttlSeconds)));
}
