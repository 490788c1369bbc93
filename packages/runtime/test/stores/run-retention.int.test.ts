import { afterEach, describe, expect, it } from "vitest";
import { expireWithin } from "../../src/stores/run-retention.ts";
import { type RedisForTest, redisForTest } from "../tools/redis-harness.ts";

let env: RedisForTest | undefined;
afterEach(async () => env?.close());

describe("expireWithin: a retired run's keys expire within the run's TTL", () => {
  it("gives a key without a TTL the run's, keeps a shorter one of its own, shortens a longer one, and creates no key", async () => {
    env = redisForTest();
    const { redis, keys } = env;
    const [lasting, shorter, longer, missing] = ["lasting", "shorter", "longer", "missing"].map((name) => keys.run(name));
    await redis.set(lasting as string, "1");
    await redis.set(shorter as string, "1", "EX", 60);
    await redis.set(longer as string, "1", "EX", 86_400);

    await expireWithin(redis, [lasting, shorter, longer, missing] as string[], 3_600);

    const ttls = await Promise.all([lasting, shorter, longer, missing].map((key) => redis.ttl(key as string)));
    expect(ttls[0]).toBeGreaterThan(3_500);
    expect(ttls[0]).toBeLessThanOrEqual(3_600);
    expect(ttls[1]).toBeLessThanOrEqual(60);
    expect(ttls[1]).toBeGreaterThan(0);
    expect(ttls[2]).toBeLessThanOrEqual(3_600);
    // -2: no such key; retirement must not bring a deleted key back.
    expect(ttls[3]).toBe(-2);
  });
});
