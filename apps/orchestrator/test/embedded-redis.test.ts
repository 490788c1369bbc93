import { describe, expect, it } from "vitest";
import { pingRedis } from "@rein/core";
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

  it("uses REDIS_URL as given without starting anything", async () => {
    const handle = await ensureRedis({ REDIS_URL: "redis://127.0.0.1:1" });
    expect(handle).toMatchObject({ url: "redis://127.0.0.1:1", embedded: false });
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
