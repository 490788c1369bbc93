import type { ConnectionOptions } from "bullmq";
import type { ReinConfig } from "./config/config.ts";
import type { Logger } from "./logger.ts";
import { rootLogger } from "./logger.ts";
import { ReinQueues } from "./queues/queues.ts";
import { connectRedis, type Redis } from "./redis/connection.ts";
import { RedisKeys } from "./redis/keys.ts";
import { ArtifactStore } from "./stores/artifact-store.ts";
import { LeaseManager } from "./stores/lease.ts";
import { RunStore } from "./stores/run-store.ts";
import { TraceLog, type TraceLogOptions } from "./trace/trace-log.ts";

/** The shared Redis-backed pieces every role uses, built once per process. */
export interface ReinRuntime {
  config: ReinConfig;
  redis: Redis;
  /** Options for BullMQ workers and queues; each makes its own connection from them. */
  connection: ConnectionOptions;
  keys: RedisKeys;
  runs: RunStore;
  trace: TraceLog;
  artifacts: ArtifactStore;
  leases: LeaseManager;
  queues: ReinQueues;
  logger: Logger;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  logger?: Logger;
  trace?: TraceLogOptions;
}

export function createRuntime(config: ReinConfig, options: RuntimeOptions = {}): ReinRuntime {
  const redis = connectRedis(config.redisUrl);
  const url = new URL(config.redisUrl);
  const connection: ConnectionOptions = {
    host: url.hostname,
    port: Number(url.port || 6379),
    password: url.password || undefined,
    username: url.username || undefined,
    db: url.pathname.length > 1 ? Number(url.pathname.slice(1)) : 0,
    maxRetriesPerRequest: null,
  };
  const keys = new RedisKeys(config.prefix);
  const queues = new ReinQueues(connection, config.prefix);
  return {
    config,
    redis,
    connection,
    keys,
    runs: new RunStore(redis, keys),
    trace: new TraceLog(redis, keys, { ttlSeconds: config.retention.traceTtlSeconds, ...options.trace }),
    artifacts: new ArtifactStore(redis, keys, { ttlSeconds: config.retention.artifactTtlSeconds }),
    leases: new LeaseManager(redis, keys),
    queues,
    logger: options.logger ?? rootLogger,
    close: async () => {
      await queues.close();
      redis.disconnect();
    },
  };
}
