import type { ConnectionOptions } from "bullmq";
import { Cluster, Redis } from "ioredis";
import type { ReinConfig } from "../config/config.ts";
import { bullmqConnectionOf } from "./connection.ts";

/** One Redis or a Redis Cluster: the stores use only commands both answer, on keys of one slot at a time. */
export type RedisClient = Redis | Cluster;

/** The connections of one process: the stores' client and what BullMQ makes its own connections from. */
export interface RedisConnections {
  redis: RedisClient;
  /** BullMQ's `connection`: options for one Redis, a Cluster of its own for a cluster. */
  bullmq: ConnectionOptions;
  /** Closes what this factory opened (BullMQ closes the connections it made itself). */
  close(): void;
}

/**
 * The one place Rein's Redis connections are made: `redis.cluster` (seed
 * URLs) means ioredis `Cluster`, else one `Redis` at `redisUrl`.
 * `maxRetriesPerRequest: null` is what BullMQ requires of connections its
 * workers block on; commands wait out a failover instead of failing.
 */
export function connectRedisFor(config: Pick<ReinConfig, "redisUrl" | "redis">): RedisConnections {
  const seeds = config.redis.cluster;
  if (!seeds) {
    const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: null });
    return { redis, bullmq: bullmqConnectionOf(config.redisUrl), close: () => redis.disconnect() };
  }
  const redis = connectCluster(seeds);
  // BullMQ shares this one for its queues and duplicates it for each worker's blocking connection.
  const bullmq = connectCluster(seeds);
  return {
    redis,
    bullmq,
    close: () => {
      redis.disconnect();
      bullmq.disconnect();
    },
  };
}

function connectCluster(seeds: readonly string[]): Cluster {
  const nodes = seeds.map((url) => {
    const { host, port } = bullmqConnectionOf(url) as { host: string; port: number };
    return { host, port };
  });
  const { password, username, tls } = bullmqConnectionOf(seeds[0] as string) as { password?: string; username?: string; tls?: object };
  return new Cluster(nodes, {
    redisOptions: { maxRetriesPerRequest: null, password, username, tls },
    // With the ready check (CLUSTER INFO says ok), a reconnect during a failover, while the cluster
    // state is still `fail`, leaves the promise of `connect()` forever pending (ioredis 5 drops it
    // when the check fails and reconnects on its own): BullMQ awaits that promise when it renews a
    // worker's blocking connection, and the worker never takes a job again. Without it, commands
    // sent while the cluster is down come back CLUSTERDOWN and are retried (retryDelayOnClusterDown).
    enableReadyCheck: false,
    // Re-reads the slot map when a master fails over, instead of failing the command.
    retryDelayOnFailover: 200,
    retryDelayOnClusterDown: 500,
    retryDelayOnTryAgain: 200,
    slotsRefreshTimeout: 2_000,
  });
}

/** Every key matching `pattern`, from every master of a cluster, with SCAN (never KEYS). */
export async function scanKeys(redis: RedisClient, pattern: string): Promise<string[]> {
  const nodes = redis.isCluster ? (redis as Cluster).nodes("master") : [redis as Redis];
  const found: string[] = [];
  for (const node of nodes) {
    let cursor = "0";
    do {
      const [next, keys] = await node.scan(cursor, "MATCH", pattern, "COUNT", 500);
      cursor = next;
      found.push(...keys);
    } while (cursor !== "0");
  }
  return found;
}
