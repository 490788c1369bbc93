import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exportPacketKeys, generatePacketKeys, type PacketKeyPair } from "@rein/signing";
import { connectRedis, createRuntime, type Redis, ReinConfig, type ReinRuntime } from "@rein/runtime";

/** Everything one bench run shares: its own key prefix, workspace root and packet keys. */
export interface BenchEnv {
  config: ReinConfig;
  keys: PacketKeyPair;
  /** Environment for child processes: the same Redis, prefix, workspace root and public key. */
  childEnv: Record<string, string>;
  /** A fresh runtime (own connections), as a separate role process would have. */
  runtime(): ReinRuntime;
  /** Deletes every key under the prefix and the workspace root, then closes the runtimes. */
  cleanup(): Promise<void>;
}

/**
 * Opens an environment under a fresh prefix. Each measure gets its own, so
 * no measure inherits another's queue backlog.
 */
export async function openBenchEnv(redisUrl: string, name: string, settings: Record<string, unknown> = {}): Promise<BenchEnv> {
  const prefix = `rein-bench-${randomBytes(4).toString("hex")}-${name}`;
  const workspaceRoot = await mkdtemp(join(tmpdir(), "rein-bench-ws-"));
  const config = ReinConfig.parse({ ...settings, redisUrl, prefix, workspaceRoot });
  const keys = generatePacketKeys();
  const opened: ReinRuntime[] = [];
  return {
    config,
    keys,
    childEnv: {
      REIN_REDIS_URL: redisUrl,
      REIN_PREFIX: prefix,
      REIN_WORKSPACE_ROOT: workspaceRoot,
      REIN_PACKET_PUBLIC_KEY: exportPacketKeys(keys).publicKeyPem,
      REIN_LOG_LEVEL: "error",
    },
    runtime: () => {
      const runtime = createRuntime(config);
      opened.push(runtime);
      return runtime;
    },
    cleanup: async () => {
      for (const runtime of opened) await runtime.close();
      // A bare connection: a runtime's queues would write their meta keys back after the delete.
      const redis = connectRedis(redisUrl);
      await deleteByPattern(redis, `${prefix}:*`);
      redis.disconnect();
      await rm(workspaceRoot, { recursive: true, force: true });
    },
  };
}

async function deleteByPattern(redis: Redis, pattern: string): Promise<void> {
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", pattern, "COUNT", 1000);
    cursor = next;
    if (keys.length > 0) await redis.unlink(...keys);
  } while (cursor !== "0");
}

/** Runs `work` in its own environment (config `settings` over the defaults) and always cleans up after it. */
export async function withBenchEnv<T>(
  redisUrl: string,
  name: string,
  work: (env: BenchEnv) => Promise<T>,
  settings: Record<string, unknown> = {},
): Promise<T> {
  const env = await openBenchEnv(redisUrl, name, settings);
  try {
    return await work(env);
  } finally {
    await env.cleanup();
  }
}
