import type { RedisClient } from "./redis-client.ts";

/**
 * Deletes `keys` one command per key, sent together: a multi-key DEL is
 * refused on Redis Cluster when the keys are in different slots.
 */
export async function deleteKeys(redis: RedisClient, keys: readonly string[]): Promise<number> {
  const deleted = await Promise.all(keys.map((key) => redis.unlink(key)));
  return deleted.reduce((sum, count) => sum + count, 0);
}
