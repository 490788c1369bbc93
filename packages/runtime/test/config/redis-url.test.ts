import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.ts";
import { DEFAULT_REDIS_URL, redisUrlFromEnv } from "../../src/config/redis-url.ts";
import { configFile } from "./config-file.ts";

describe("which Redis a process uses", () => {
  it("takes REIN_REDIS_URL, else REDIS_URL, else the local default", () => {
    expect(redisUrlFromEnv({ REIN_REDIS_URL: "redis://a:1", REDIS_URL: "redis://b:2" })).toBe("redis://a:1");
    expect(redisUrlFromEnv({ REDIS_URL: "redis://b:2" })).toBe("redis://b:2");
    expect(redisUrlFromEnv({})).toBe(DEFAULT_REDIS_URL);
  });

  it("agrees with loadConfig over a config file that names no Redis", () => {
    const file = configFile({});
    for (const env of [{ REIN_REDIS_URL: "redis://a:1", REDIS_URL: "redis://b:2" }, { REDIS_URL: "redis://b:2" }, {}]) {
      expect(loadConfig({ file, env }).redisUrl).toBe(redisUrlFromEnv(env));
    }
  });

  it("lets the environment win over a config file's redisUrl, and an empty variable name none", () => {
    const file = configFile({ redisUrl: "redis://from-file:3" });
    expect(loadConfig({ file, env: { REDIS_URL: "redis://b:2" } }).redisUrl).toBe("redis://b:2");
    expect(loadConfig({ file, env: { REIN_REDIS_URL: "", REDIS_URL: "redis://b:2" } }).redisUrl).toBe("redis://b:2");
    expect(loadConfig({ file, env: {} }).redisUrl).toBe("redis://from-file:3");
  });
});
