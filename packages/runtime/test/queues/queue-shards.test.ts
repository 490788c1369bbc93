import calculateSlot from "cluster-key-slot";
import { newId } from "@rein/contracts";
import { describe, expect, it } from "vitest";
import { ReinConfig } from "../../src/config/config.ts";
import { queueShardOf, queueShardTag } from "../../src/queues/queue-shards.ts";
import { RedisKeys } from "../../src/redis/keys.ts";

const SLOTS = 16_384;

/** The slot ranges `redis-cli --cluster create` gives `masters` masters: equal, in order. */
const masterOfSlot = (slot: number, masters: number) => Math.floor((slot * masters) / SLOTS);

/** The hash tag of a key: what Redis Cluster hashes. */
const tagOf = (key: string) => /\{([^}]+)\}/.exec(key)?.[1] ?? "";

describe("queue shards", () => {
  it("keep the queues under {queues} with one shard, as every deployment before sharding", () => {
    const keys = new RedisKeys("rein");
    expect(keys.queuePrefix()).toBe("rein:{queues}");
    expect(keys.job("step", "step-run_a-s1-1", "run_a")).toBe("rein:{queues}:step:step-run_a-s1-1");
  });

  it.each([
    [3, 3],
    [6, 3],
    [12, 4],
  ])("put %i shards evenly on the masters of a %i-master cluster", (shards, masters) => {
    const keys = new RedisKeys("rein", shards);
    const perMaster = new Map<number, number>();
    for (const prefix of keys.queuePrefixes()) {
      const master = masterOfSlot(calculateSlot(prefix), masters);
      perMaster.set(master, (perMaster.get(master) ?? 0) + 1);
    }
    expect([...perMaster.values()]).toEqual(Array.from({ length: masters }, () => shards / masters));
    expect(new Set(keys.queuePrefixes()).size).toBe(shards);
  });

  it("give every key of one shard's queues one slot, as BullMQ's scripts need", () => {
    const keys = new RedisKeys("rein", 4);
    const runId = "run_abc";
    const shardPrefix = keys.queuePrefix(keys.shardOf(runId));
    const jobKey = keys.job("evaluate", "evaluate-run_abc-s1-1", runId);
    expect(jobKey.startsWith(`${shardPrefix}:evaluate:`)).toBe(true);
    expect(calculateSlot(jobKey)).toBe(calculateSlot(`${shardPrefix}:evaluate:wait`));
    expect(tagOf(jobKey)).toBe(queueShardTag(keys.shardOf(runId), 4));
  });

  it("send a run to the same shard every time, and runs to every shard", () => {
    const runIds = Array.from({ length: 3_000 }, () => newId("run"));
    const counts = [0, 0, 0];
    for (const runId of runIds) {
      const shard = queueShardOf(runId, 3);
      expect(queueShardOf(runId, 3)).toBe(shard);
      counts[shard] = (counts[shard] ?? 0) + 1;
    }
    // 1,000 expected each; a CRC16 of random ids strays a few percent.
    for (const count of counts) expect(count).toBeGreaterThan(850);
  });

  it("refuse a shard that does not exist, naming the configured count", () => {
    expect(() => new RedisKeys("rein", 2).queuePrefix(2)).toThrow(/queue shard 2 does not exist: queues.shards is 2/);
  });

  it("are configured as queues.shards, from 1 to 64", () => {
    expect(ReinConfig.parse({}).queues.shards).toBe(1);
    expect(ReinConfig.parse({ queues: { shards: 6 } }).queues.shards).toBe(6);
    expect(() => ReinConfig.parse({ queues: { shards: 0 } })).toThrow(/shards/);
    expect(() => ReinConfig.parse({ queues: { shards: 65 } })).toThrow(/shards/);
  });
});
