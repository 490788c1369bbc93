import type { RunState } from "@rein/contracts/run";
import type { RedisKeys } from "../redis/keys.ts";
import type { RedisClient } from "../redis/redis-client.ts";
import { checkpointKeys } from "./checkpoint-store.ts";

/**
 * The keys that hold one run: state, trace (stream, sequence, prompt
 * copies, OpenTelemetry context), tool cache, artifacts and their index,
 * each step's checkpoint, and the intent and outcome records of its calls
 * with their index. Approvals live in their own slot
 * (`ApprovalStore.retireRun`); BullMQ jobs are removed by the queues'
 * `retention.jobs`.
 */
export async function runKeysOf(redis: RedisClient, keys: RedisKeys, state: Pick<RunState, "runId" | "steps">): Promise<string[]> {
  const { runId } = state;
  const [artifactIds, records] = await Promise.all([redis.smembers(keys.runArtifacts(runId)), redis.smembers(keys.runIdempotency(runId))]);
  return [
    keys.run(runId),
    keys.trace(runId),
    keys.traceSeq(runId),
    keys.traceBlobs(runId),
    keys.traceContext(runId),
    keys.toolCache(runId),
    // A set SMEMBERS found empty does not exist: there is nothing to expire.
    ...(artifactIds.length > 0 ? [keys.runArtifacts(runId)] : []),
    ...artifactIds.map((artifactId) => keys.artifact(artifactId)),
    ...state.steps.flatMap((step) => checkpointKeys(keys, runId, step.stepId)),
    ...(records.length > 0 ? [keys.runIdempotency(runId)] : []),
    ...records,
  ];
}

/**
 * Gives each existing key a TTL of at most `ttlSeconds`: a key without one
 * gets it, a key whose own TTL is shorter (a trace or artifact TTL from
 * config) keeps its own. `EXPIRE … LT` does both in one command, since a key
 * without a TTL counts as infinite (https://redis.io/commands/expire/, Redis 7).
 */
export async function expireWithin(redis: RedisClient, keys: readonly string[], ttlSeconds: number): Promise<void> {
  // One command per key, sent together: a pipeline on Redis Cluster must stay in one slot, and artifacts do not.
  await Promise.all(keys.map((key) => redis.expire(key, ttlSeconds, "LT")));
}

/**
 * Notes when a retired run's keys expire (ms since the epoch), so that the
 * run index and the metrics cursors forget it then. The first note stands:
 * a replayed retirement does not push the run's keys' expiry back either.
 */
export async function noteRunExpiry(redis: RedisClient, keys: RedisKeys, runId: string, expiresAtMs: number): Promise<void> {
  await redis.zadd(keys.runExpiries(), "NX", expiresAtMs, runId);
}

/**
 * Forgets runs whose keys have expired by `nowMs`, at most `limit` of them:
 * a retirement adds one and forgets up to `limit`, so the run index and the
 * metrics cursors stay as large as the runs Redis still keeps.
 * @returns the runs forgotten
 */
export async function forgetExpiredRuns(redis: RedisClient, keys: RedisKeys, nowMs: number, limit = 100): Promise<string[]> {
  const runIds = await redis.zrangebyscore(keys.runExpiries(), "-inf", nowMs, "LIMIT", 0, limit);
  await forgetRuns(redis, keys, runIds);
  return runIds;
}

/**
 * Removes runs from the run index, their cursors from the metrics fold and
 * any deadline left (a run pruned before it ended), and last their expiry
 * notes, so an interrupted call is finished by the next. The index entry goes
 * first: a scrape reads cursors only for runs in the index. Four keys of four
 * slots: four commands.
 */
export async function forgetRuns(redis: RedisClient, keys: RedisKeys, runIds: readonly string[]): Promise<void> {
  if (runIds.length === 0) return;
  await redis.zrem(keys.runIndex(), ...runIds);
  await redis.hdel(keys.metricsCursors(), ...runIds);
  await redis.zrem(keys.runDeadlines(), ...runIds);
  await redis.zrem(keys.runExpiries(), ...runIds);
}
