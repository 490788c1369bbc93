import type { RedisClient } from "./redis-client.ts";
import type { Logger } from "@rein/guard";

/** Anything that reports its connection's failures as `error` events: an ioredis client, a BullMQ Queue or Worker. */
export interface ErrorEmitter {
  on(event: "error", listener: (error: Error) => void): unknown;
}

const CONNECTION_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ECONNABORTED",
]);
// "Failed to refresh slots cache": a cluster client that reached none of its nodes (ClusterAllFailedError).
const CONNECTION_MESSAGES =
  /Connection is closed|Stream isn't writeable|Reached the max retries per request limit|connect ETIMEDOUT|Socket closed unexpectedly|Failed to refresh slots cache/i;

/** `Redis.duplicate` and `Cluster.duplicate`, whose arguments differ, as one signature. */
type Duplicate = (...args: never[]) => RedisClient;

/** Whether `error` says the connection to Redis is down, rather than that a command or job went wrong. */
export function isConnectionError(error: Error): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return (code !== undefined && CONNECTION_CODES.has(code)) || CONNECTION_MESSAGES.test(error.message);
}

/**
 * One process's account of its Redis connections. Every client it opens
 * (its own, duplicates, BullMQ's queues and workers) reports here, so an
 * outage is logged once when it starts (once per distinct error, not per
 * retry of each client) and once when Redis answers again, with how long it
 * lasted. Without a listener ioredis and BullMQ print every failed retry as
 * an unhandled error.
 */
export class RedisErrorLog {
  #outage: { since: number; messages: Set<string>; sources: Set<string>; repeated: number } | undefined;

  constructor(
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Listens to `emitter`'s errors as `source` (e.g. "controller", "queue control"). */
  watch<T extends ErrorEmitter>(emitter: T, source: string): T {
    emitter.on("error", (error: Error) => this.report(error, source));
    return emitter;
  }

  /** Follows an ioredis client: its errors, and its `ready` after an outage as the sign that Redis is back. */
  watchClient<T extends ErrorEmitter & { on(event: "ready", listener: () => void): unknown }>(client: T, source: string): T {
    this.watch(client, source);
    client.on("ready", () => this.recovered());
    return client;
  }

  /**
   * Follows `client` and every client later duplicated from it (a trace
   * follower's, a live subscriber's): ioredis copies a client's options into
   * its duplicates, never its listeners.
   */
  watchFamily<T extends RedisClient>(client: T, source: string): T {
    this.watchClient(client, source);
    // A cluster's duplicate is a new Cluster (from the same seeds) and, as any duplicate, starts with no listener.
    const duplicate = (client.duplicate as Duplicate).bind(client);
    (client as { duplicate: Duplicate }).duplicate = (...args) => this.watchFamily(duplicate(...args), `${source} (duplicate)`);
    return client;
  }

  report(error: Error, source: string): void {
    if (!isConnectionError(error)) {
      this.logger.error({ err: error, source }, `${source} error`);
      return;
    }
    if (!this.#outage) this.#outage = { since: this.now(), messages: new Set(), sources: new Set(), repeated: 0 };
    const outage = this.#outage;
    outage.sources.add(source);
    if (outage.messages.has(error.message)) {
      outage.repeated += 1;
      return;
    }
    outage.messages.add(error.message);
    this.logger.warn(
      { err: error, source },
      "redis unreachable; every client keeps retrying, and this error is not logged again until redis is back",
    );
  }

  /** Redis answered again: says so once, with how long it was gone. */
  recovered(): void {
    const outage = this.#outage;
    if (!outage) return;
    this.#outage = undefined;
    this.logger.warn(
      { outageMs: this.now() - outage.since, sources: [...outage.sources], repeatedErrors: outage.repeated },
      `redis is back after ${Math.round((this.now() - outage.since) / 100) / 10} s; ${outage.repeated} repeated error(s) were not logged`,
    );
  }
}
