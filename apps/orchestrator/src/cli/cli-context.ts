import { createRuntime, loadConfig, type ReinConfig, type ReinConfigInput, type ReinRuntime, assertRedis } from "@rein/core";
import { ensureRedis, type RedisHandle } from "../redis/embedded-redis.ts";

export interface CliContext {
  config: ReinConfig;
  runtime: ReinRuntime;
  redis: RedisHandle;
  close(): Promise<void>;
}

export interface OpenOptions {
  configFile?: string;
  overrides?: ReinConfigInput;
  /** Start a private redis-server when none is reachable (only `rein run`). */
  embedRedis?: boolean;
}

/** Loads config, finds (or, for `rein run`, starts) Redis, and builds the runtime. */
export async function openContext(options: OpenOptions): Promise<CliContext> {
  let config = loadConfig({ file: options.configFile, overrides: options.overrides });
  let redis: RedisHandle = { url: config.redisUrl, embedded: false, stop: async () => {} };
  if (options.embedRedis) {
    redis = await ensureRedis();
    config = { ...config, redisUrl: redis.url };
  } else {
    await assertRedis(config.redisUrl);
  }
  const runtime = createRuntime(config);
  return {
    config,
    runtime,
    redis,
    close: async () => {
      await runtime.close();
      await redis.stop();
    },
  };
}
