// @rein/runtime/keys: a run's keys handled directly, for retention and operator tooling:
// finding them, expiring them with the run, deleting them, and reading flat replies.
export type { RedisKeys } from "../redis/keys.ts";
export { scanKeys } from "../redis/redis-client.ts";
export { deleteByPrefix } from "../redis/delete-by-prefix.ts";
export { deleteKeys } from "../redis/delete-keys.ts";
export { flatPairs } from "../redis/flat-pairs.ts";
export { checkpointKeys } from "../stores/checkpoint-store.ts";
export { expireWithin, forgetExpiredRuns, forgetRuns, noteRunExpiry, runKeysOf } from "../stores/run-retention.ts";
