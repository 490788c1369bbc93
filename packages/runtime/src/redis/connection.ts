import type { ConnectionOptions } from "bullmq";
import { Redis, type RedisOptions } from "ioredis";
import { ReinError } from "@rein/contracts";

export type { Redis };

/**
 * A connection for Rein's stores and BullMQ. `maxRetriesPerRequest: null`
 * is what BullMQ requires of connections its workers block on.
 */
export function connectRedis(url: string, options: RedisOptions = {}): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, lazyConnect: false, ...options });
}

/**
 * BullMQ's connection options for a Redis URL, meaning what ioredis makes of
 * the same URL: `rediss://` is TLS, and the user name and password are
 * percent-decoded (a password holding `@`, `/` or `:` must be written encoded).
 */
export function bullmqConnectionOf(redisUrl: string): ConnectionOptions {
  let url: URL;
  try {
    url = new URL(redisUrl);
  } catch (error) {
    throw new ReinError(
      "config_invalid",
      `config key redisUrl: ${redactPassword(redisUrl)} is not a URL; expected redis://[user:password@]host:port[/db] or rediss://… for TLS`,
      { cause: error },
    );
  }
  if (url.protocol !== "redis:" && url.protocol !== "rediss:") {
    throw new ReinError("config_invalid", `config key redisUrl: expected the redis:// or rediss:// scheme, not ${url.protocol}//`);
  }
  return {
    host: url.hostname.replace(/^\[|\]$/g, ""),
    port: Number(url.port || 6379),
    password: url.password ? decodeURIComponent(url.password) : undefined,
    username: url.username ? decodeURIComponent(url.username) : undefined,
    db: url.pathname.length > 1 ? Number(url.pathname.slice(1)) : 0,
    ...(url.protocol === "rediss:" ? { tls: { servername: url.hostname } } : {}),
    maxRetriesPerRequest: null,
  };
}

/** A Redis URL fit for a message or a log: the password replaced. */
export function redactPassword(redisUrl: string): string {
  return redisUrl.replace(/^(rediss?:\/\/[^:@/]*:)[^@/]*@/, "$1***@");
}

export async function pingRedis(url: string, timeoutMs = 1_000): Promise<boolean> {
  return (await probeRedis(url, timeoutMs)) === undefined;
}

/** Why `url` does not answer PING within `timeoutMs`, or undefined when it does. */
export async function probeRedis(url: string, timeoutMs = 2_000): Promise<string | undefined> {
  let probe: Redis;
  try {
    probe = new Redis(url, {
      lazyConnect: true,
      connectTimeout: timeoutMs,
      commandTimeout: timeoutMs,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      enableOfflineQueue: false,
    });
  } catch (error) {
    return (error as Error).message;
  }
  probe.on("error", () => {});
  try {
    await probe.connect();
    const answer = await probe.ping();
    return answer === "PONG" ? undefined : `it answered PING with ${JSON.stringify(answer)}`;
  } catch (error) {
    return (error as Error).message || String(error);
  } finally {
    probe.disconnect();
  }
}

/**
 * Fails within a few seconds, with one message naming the URL (password
 * hidden) and the reason, when no Redis answers there.
 */
export async function assertRedis(url: string, timeoutMs = 2_000): Promise<void> {
  const problem = await probeRedis(url, timeoutMs);
  if (problem !== undefined) {
    throw new ReinError(
      "redis_unavailable",
      `no Redis answers at ${redactPassword(url)} (${problem}); expected a reachable Redis 6.2+ server there, or another URL in --redis, REDIS_URL or the config's redisUrl`,
      { retryable: true, details: { url: redactPassword(url) } },
    );
  }
}
