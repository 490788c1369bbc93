import { createServer } from "node:net";
import { Writable } from "node:stream";
import { Cluster, Redis } from "ioredis";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createLogger } from "@rein/guard";
import { RedisErrorLog } from "../../src/redis/redis-error-log.ts";
import type { RedisClient } from "../../src/redis/redis-client.ts";
import { until } from "@rein/contracts/testing";

interface LogRecord {
  msg: string;
  source?: string;
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * The subscribers and trace followers of a role are duplicates of its
 * runtime's client; ioredis gives a duplicate the options of its original,
 * never its listeners, and prints an error nothing listens to.
 */
describe("a Redis error log following a client and its duplicates", () => {
  const opened: RedisClient[] = [];
  afterEach(() => {
    for (const client of opened.splice(0)) client.disconnect();
    vi.restoreAllMocks();
  });

  const follow = (client: RedisClient) => {
    const records: LogRecord[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString("utf8").split("\n").filter(Boolean)) records.push(JSON.parse(line) as LogRecord);
        done();
      },
    });
    new RedisErrorLog(createLogger({ level: "warn" }, sink)).watchFamily(client, "redis");
    opened.push(client);
    return records;
  };

  for (const kind of ["one Redis", "a Redis Cluster"] as const) {
    it(`hears the errors of a duplicate of ${kind}, printing none`, async () => {
      const unhandled = vi.spyOn(console, "error").mockImplementation(() => undefined);
      const port = await closedPort();
      const client: RedisClient =
        kind === "one Redis"
          ? new Redis(port, "127.0.0.1", { lazyConnect: true, retryStrategy: () => null })
          : new Cluster([{ host: "127.0.0.1", port }], { lazyConnect: true, clusterRetryStrategy: () => null });
      const records = follow(client);
      const duplicate = client.duplicate();
      opened.push(duplicate);
      await duplicate.connect().catch(() => undefined);
      const logged = () => records.some((record) => record.source === "redis (duplicate)");
      await until("the duplicate's error to be logged or printed", () => logged() || unhandled.mock.calls.length > 0);
      expect(unhandled).not.toHaveBeenCalled();
      expect(records.filter((record) => record.source === "redis (duplicate)").map((record) => record.msg)).toEqual([
        "redis unreachable; every client keeps retrying, and this error is not logged again until redis is back",
      ]);
    });
  }
});
