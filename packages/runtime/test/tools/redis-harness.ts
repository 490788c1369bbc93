import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { afterEach, beforeEach } from "vitest";
import { redisUrlFromEnv } from "../../src/config/redis-url.ts";
import { RedisKeys } from "../../src/redis/keys.ts";
import { IdempotencyStore } from "../../src/stores/idempotency-store.ts";
import { fixtureAround, liveView } from "@rein/contracts/testing";
import type { Workspace } from "@rein/tools";
import { tempWorkspace } from "@rein/tools/testing";

export const REDIS_URL = redisUrlFromEnv();

/** A connection and a key prefix of its own; `close` deletes every key under the prefix. */
export function redisForTest() {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  const keys = new RedisKeys(`rein-test-${randomBytes(6).toString("hex")}`);
  const close = async () => {
    const stream = redis.scanStream({ match: keys.pattern(), count: 500 });
    for await (const batch of stream as AsyncIterable<string[]>) {
      if (batch.length > 0) await redis.del(...batch);
    }
    redis.disconnect();
  };
  return { redis, keys, close };
}

export type RedisForTest = ReturnType<typeof redisForTest>;

/** A temporary workspace and a Redis prefix of its own, for one test; `cleanup` removes both. */
export async function workspaceAndRedis(): Promise<{ workspace: Workspace; env: RedisForTest; cleanup: () => Promise<void> }> {
  const { workspace, cleanup } = await tempWorkspace();
  const env = redisForTest();
  return {
    workspace,
    env,
    cleanup: async () => {
      await env.close();
      await cleanup();
    },
  };
}

/**
 * A Redis prefix and an idempotency store on it, fresh for each test of the
 * file that calls this at its top level, and deleted after it.
 */
export function idempotencyPerTest(): { readonly env: RedisForTest; readonly store: IdempotencyStore } {
  const current = fixtureAround(
    beforeEach,
    afterEach,
    "the idempotency store",
    () => {
      const env = redisForTest();
      return { env, store: new IdempotencyStore(env.redis, env.keys) };
    },
    ({ env }) => env.close(),
  );
  return liveView(current, ["env", "store"]);
}
