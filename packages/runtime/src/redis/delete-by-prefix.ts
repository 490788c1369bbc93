import { deleteKeys } from "./delete-keys.ts";
import { type RedisClient, scanKeys } from "./redis-client.ts";

/** Deletes every key under `prefix:` with SCAN, never KEYS, so a busy Redis is not blocked. */
export async function deleteByPrefix(redis: RedisClient, prefix: string): Promise<number> {
  return deleteKeys(redis, await scanKeys(redis, `${prefix}:*`));
}
