import { afterEach, describe, expect, it } from "vitest";
import { ActiveRuns } from "../../src/stores/active-runs.ts";
import { type RedisForTest, redisForTest } from "../tools/redis-harness.ts";

let env: RedisForTest | undefined;
afterEach(async () => env?.close());

const at = (ms: number, status: "executing" | "done" = "executing") => ({
  runId: "run_a",
  status,
  updatedAt: new Date(ms).toISOString(),
});

describe("ActiveRuns: the index the re-drive sweep reads", () => {
  it("keeps each run's stamp less than a second behind its last change while a burst of writes stamps it once", async () => {
    env = redisForTest();
    const active = new ActiveRuns(env.redis, env.keys);
    const score = async () => Number(await env?.redis.zscore(env.keys.activeRuns(), "run_a"));
    const changes = [10_000, 10_400, 10_999, 11_100, 11_950, 12_001, 14_500];
    await active.record(at(changes[0] as number));
    const stamps = [await score()];
    for (let index = 1; index < changes.length; index += 1) {
      await active.record(at(changes[index] as number), at(changes[index - 1] as number));
      stamps.push(await score());
      expect(changes[index] as number).toBeLessThan((stamps.at(-1) as number) + 1_000);
    }
    // Stamped at the first change of each second, not at every change.
    expect(stamps).toEqual([10_000, 10_000, 10_000, 11_100, 11_100, 12_001, 14_500]);
  });

  it("removes an ended run whatever second it ended in", async () => {
    env = redisForTest();
    const active = new ActiveRuns(env.redis, env.keys);
    await active.record(at(10_000));
    await active.record(at(10_200, "done"), at(10_000));
    expect(await env.redis.zscore(env.keys.activeRuns(), "run_a")).toBeNull();
  });
});
