import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectRedis } from "@rein/runtime";
import { type ClusterNode, LocalCluster } from "./local-cluster.ts";

/**
 * The cluster tests crash a master and expect its replica to take over with
 * what the master acknowledged. That holds only once the replica receives its
 * master's writes, which a replica whose link reads `up` may not yet do.
 */
describe("a local Redis Cluster, as soon as it has started", { timeout: 180_000 }, () => {
  let cluster: LocalCluster;

  beforeAll(async () => {
    cluster = await LocalCluster.start();
  }, 180_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  it("has every replica acknowledging its master's writes", async () => {
    const acknowledged = await Promise.all(cluster.nodes.map((node) => replicaAcknowledgedOffsets(node)));
    const offsets = acknowledged.flat();
    expect(offsets).toHaveLength(3);
    // Offset 0 is where a fresh replica's full sync left it: its master has not streamed it a write since.
    expect(offsets.filter((offset) => offset === 0)).toEqual([]);
  });

  it("keeps what a master acknowledged when that master is SIGKILLed at once", async () => {
    const master = await cluster.masterOf("{queues}");
    const redis = connectRedis(master.url);
    const keys = Array.from({ length: 200 }, (_, index) => `{queues}:acknowledged-${index}`);
    try {
      for (const key of keys) await redis.set(key, "1");
    } finally {
      redis.disconnect();
    }
    await cluster.crash(master);
    const successor = await cluster.failedOver(master, "{queues}");
    const survivor = connectRedis(successor.url);
    try {
      expect(await Promise.all(keys.map((key) => survivor.exists(key)))).toEqual(keys.map(() => 1));
    } finally {
      survivor.disconnect();
    }
  });
});

/** The offset each replica of `node` last acknowledged, as `node` reports it (none when `node` is a replica). */
async function replicaAcknowledgedOffsets(node: ClusterNode): Promise<number[]> {
  const redis = connectRedis(node.url);
  try {
    const info = String(await redis.info("replication"));
    return [...info.matchAll(/^slave\d+:.*\boffset=(\d+)/gm)].map((match) => Number(match[1]));
  } finally {
    redis.disconnect();
  }
}
