import { describe, expect, it } from "vitest";
import { pingRedis } from "@rein/runtime";
import { ensureRedis, startEmbeddedRedis } from "../src/redis/embedded-redis.ts";

describe("embedded Redis", () => {
  it("starts a private redis-server on a free port and stops it", async () => {
    const handle = await startEmbeddedRedis();
    try {
      expect(handle.embedded).toBe(true);
      expect(handle.url).toMatch(/^redis:\/\/127\.0\.0\.1:\d+$/);
      expect(handle.url).not.toBe("redis://127.0.0.1:6379");
      expect(await pingRedis(handle.url)).toBe(true);
    } finally {
      await handle.stop();
    }
    expect(await pingRedis(handle.url, 300)).toBe(false);
  });

  it("fails on a configured URL that does not answer, naming it, rather than starting another", async () => {
    await expect(ensureRedis("redis://127.0.0.1:1")).rejects.toThrow(/no Redis answers at redis:\/\/127\.0\.0\.1:1\b/);
  });

  it("says how to get Redis when none answers and redis-server is not on PATH", async () => {
    const path = process.env.PATH;
    process.env.PATH = "/nonexistent";
    try {
      await expect(startEmbeddedRedis()).rejects.toThrow(/redis-server is not on PATH; install one/);
    } finally {
      process.env.PATH = path;
    }
  });
});
