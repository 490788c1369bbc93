import type { Redis } from "ioredis";
import { deleteKeys } from "./delete-keys.ts";

/** Deletes every key under `prefix:` with SCAN, never KEYS, so a busy Redis is not blocked. */
export async function deleteByPrefix(redis: Redis, prefix: string): Promise<number> {
  let cursor = "0";
  let deleted = 0;
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 500);
    cursor = next;
    deleted += await deleteKeys(redis, keys);
  } while (cursor !== "0");
  return deleted;
}
