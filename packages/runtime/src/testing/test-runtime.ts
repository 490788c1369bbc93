import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ReinConfig, type ReinConfigInput } from "../config/config.ts";
import { redisUrlFromEnv } from "../config/redis-url.ts";
import { connectRedis } from "../redis/connection.ts";
import { deleteByPrefix } from "../redis/delete-by-prefix.ts";
import { createRuntime, type ReinRuntime, type RuntimeOptions } from "../runtime.ts";

/** The Redis integration tests use: the one the environment names, as for every Rein process (redisUrlFromEnv). */
export const TEST_REDIS_URL = redisUrlFromEnv();

export interface TestRuntime extends ReinRuntime {
  /** Deletes every key under this runtime's prefix and its workspace root and key directory. */
  cleanup(): Promise<void>;
}

/**
 * A runtime on the test Redis with a unique key prefix and its own
 * workspace root and key directory, so integration tests never see each other's data.
 */
export async function createTestRuntime(overrides: ReinConfigInput = {}, options: RuntimeOptions = {}): Promise<TestRuntime> {
  const prefix = `rein-test-${randomBytes(6).toString("hex")}`;
  const workspaceRoot = await mkdtemp(join(tmpdir(), "rein-ws-"));
  const keysDir = await mkdtemp(join(tmpdir(), "rein-keys-"));
  const config = ReinConfig.parse({ redisUrl: TEST_REDIS_URL, prefix, workspaceRoot, keysDir, ...overrides });
  const runtime = createRuntime(config, options);
  return {
    ...runtime,
    cleanup: async () => {
      // Closed first: a queue still open can write its meta key back after the delete.
      await runtime.close();
      const redis = runtime.redisErrors.watchClient(connectRedis(config.redisUrl), "test cleanup");
      try {
        await deleteByPrefix(redis, prefix);
      } finally {
        redis.disconnect();
      }
      await rm(workspaceRoot, { recursive: true, force: true });
      await rm(keysDir, { recursive: true, force: true });
    },
  };
}
