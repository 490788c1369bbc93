import { Redis, type RedisOptions } from "ioredis";
import { ReinError } from "../errors.ts";

export type { Redis };

/**
 * A connection for Rein's stores and BullMQ. `maxRetriesPerRequest: null`
 * is what BullMQ requires of connections its workers block on.
 */
export function connectRedis(url: string, options: RedisOptions = {}): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, lazyConnect: false, ...options });
}

export async function pingRedis(url: string, timeoutMs = 1_000): Promise<boolean> {
  const probe = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  probe.on("error", () => {});
  try {
    await probe.connect();
    return (await probe.ping()) === "PONG";
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

export async function assertRedis(url: string): Promise<void> {
  if (!(await pingRedis(url))) {
    throw new ReinError("redis_unavailable", `no Redis answers at ${url}; expected a reachable Redis 6.2+ server`, {
      retryable: true,
    });
  }
}
