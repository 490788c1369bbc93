import type { Redis } from "ioredis";
import type { RunState } from "../contracts/run-state.ts";
import type { RedisKeys } from "../redis/keys.ts";
import { checkpointKeys } from "./checkpoint-store.ts";

/**
 * The keys that hold one run: state, trace (stream, sequence, prompt
 * copies), tool cache, artifacts and their index, and each step's
 * checkpoint. Idempotency records and approvals are written with a TTL of
 * their own; BullMQ jobs are removed by the queues' `retention.jobs`.
 */
export async function runKeysOf(redis: Redis, keys: RedisKeys, state: Pick<RunState, "runId" | "steps">): Promise<string[]> {
  const { runId } = state;
  const artifactIds = await redis.smembers(keys.runArtifacts(runId));
  return [
    keys.run(runId),
    keys.trace(runId),
    keys.traceSeq(runId),
    keys.traceBlobs(runId),
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
export async function expireWithin(redis: Redis, keys: readonly string[], ttlSeconds: number): Promise<void> {
  if (keys.length === 0) return;
  const ttls = await keys.reduce((pipeline, key) => pipeline.ttl(key), redis.pipeline()).exec();
  const expiring = redis.pipeline();
  keys.forEach((key, index) => {
    const ttl = Number(ttls?.[index]?.[1] ?? -2);
    if (ttl === -1 || ttl > ttlSeconds) expiring.expire(key, ttlSeconds);
  });
  if (expiring.length > 0) await expiring.exec();
}
