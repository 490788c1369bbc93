import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.ts";

describe("redis.cluster in the config", () => {
  it("takes the seed URLs from REIN_REDIS_CLUSTER, comma-separated, over the file", () => {
    const config = loadConfig({
      overrides: { redis: { cluster: ["redis://a:1"] } },
      env: { REIN_REDIS_CLUSTER: "redis://10.0.0.1:7000, redis://10.0.0.2:7000" },
    });
    expect(config.redis.cluster).toEqual(["redis://10.0.0.1:7000", "redis://10.0.0.2:7000"]);
  });

  it("is absent unless asked for, so one Redis at redisUrl is used", () => {
    expect(loadConfig({ env: {} }).redis.cluster).toBeUndefined();
  });

  it("refuses a seed that is not a Redis URL, naming the key", () => {
    expect(() => loadConfig({ env: { REIN_REDIS_CLUSTER: "10.0.0.1:7000" } })).toThrow(/redis\.cluster\.0.*redis:\/\/host:port/);
  });
});
