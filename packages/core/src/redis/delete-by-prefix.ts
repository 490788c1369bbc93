import type { Redis } from "ioredis";

/** Deletes every key under `prefix:` with SCAN, never KEYS, so a busy Redis is not blocked. */
export async function deleteByPrefix(redis: Redis, prefix: string): Promise<number> {
  let cursor = "0";
  let deleted = 0;
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 500);
    cursor = next;
    if (keys.length > 0) deleted += await redis.del(...keys);
  } while (cursor !== "0");
  return deleted;
}
