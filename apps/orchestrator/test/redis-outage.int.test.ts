import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterEach, describe, expect, it, vi } from "vitest";
import { generatePacketKeys } from "@rein/signing";
import { createRuntime, pingRedis, ReinConfig, type ReinRuntime } from "@rein/runtime";
import { until } from "@rein/contracts/testing";
import type { Worker } from "bullmq";
import { startController } from "@rein/controller";
import { freePort } from "../src/redis/embedded-redis.ts";

interface LogRecord {
  msg: string;
  err?: { message?: string };
  [key: string]: unknown;
}

describe("a process whose Redis goes away and comes back", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    cleanups.length = 0;
    vi.restoreAllMocks();
  });

  it("handles every client's errors and says once that Redis is unreachable and once that it is back", async () => {
    const consoleErrors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const port = await freePort();
    const workspaceRoot = await mkdtemp(join(tmpdir(), "rein-outage-"));
    cleanups.push(() => rm(workspaceRoot, { recursive: true, force: true }));
    const records: LogRecord[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of chunk.toString().split("\n").filter(Boolean)) records.push(JSON.parse(line) as LogRecord);
        done();
      },
    });
    const config = ReinConfig.parse({ redisUrl: `redis://127.0.0.1:${port}`, prefix: `rein-outage-${port}`, workspaceRoot });
    const runtime: ReinRuntime = createRuntime(config, { logDestination: sink });
    let retries = 0;
    runtime.redis.on("error", () => {
      retries += 1;
    });
    // Every kind of client a role opens: its stores' own, a duplicate following a trace, a queue, and a BullMQ worker.
    const worker: Worker = startController({ runtime, packetPrivateKey: generatePacketKeys().privateKey });
    const following = new AbortController();
    const follow = (async () => {
      for await (const _event of runtime.trace.follow("run-x", following.signal, 100)) break;
    })().catch(() => undefined);
    void runtime.queues.control.waitUntilReady().catch(() => undefined);
    cleanups.push(async () => {
      following.abort();
      await worker.close(true).catch(() => undefined);
      await runtime.close();
      await follow;
    });

    await until("several reconnect attempts", () => retries >= 4);
    const lost = records.filter((record) => /redis .*unreachable/i.test(record.msg));
    expect(lost.length).toBeGreaterThan(0);
    // One line per distinct problem, not one per retry of each client.
    const messages = lost.map((record) => record.err?.message);
    expect(new Set(messages).size).toBe(messages.length);
    expect(messages.join("\n")).toContain(`127.0.0.1:${port}`);

    const redis = await startRedisOn(port);
    // Stopped last: clients close cleanly only while Redis answers.
    cleanups.unshift(redis.stop);
    // The "unreachable" line also says "until redis is back": only a line that starts so announces the return.
    const isBack = (record: LogRecord) => /^redis is back after/.test(record.msg);
    await until("the reconnect to be logged", () => records.some(isBack));
    // Every client, BullMQ's blocking worker connection included, answers again before the count is taken.
    await until(
      "every client to answer again",
      async () => (await runtime.redis.ping()) === "PONG" && (await runtime.queues.control.getJobCounts()) !== undefined,
    );
    await worker.waitUntilReady();
    expect(records.filter(isBack)).toHaveLength(1);
    expect(records.filter((record) => /redis .*unreachable/i.test(record.msg)).length).toBe(lost.length);
    expect(consoleErrors).not.toHaveBeenCalled();
  }, 90_000);
});

async function startRedisOn(port: number): Promise<{ stop: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "rein-outage-redis-"));
  const child: ChildProcess = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir],
    { stdio: "ignore" },
  );
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    child.kill("SIGTERM");
    await exited;
    await rm(dir, { recursive: true, force: true });
  };
  for (let attempt = 0; attempt < 200; attempt += 1) {
    if (await pingRedis(`redis://127.0.0.1:${port}`, 200)) return { stop };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await stop();
  throw new Error(`redis-server on port ${port} never answered`);
}
