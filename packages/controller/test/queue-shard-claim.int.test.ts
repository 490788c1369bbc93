import { afterEach, describe, expect, it } from "vitest";
import { createRuntime, type ReinRuntime } from "@rein/runtime";
import { createTestRuntime, type TestRuntime } from "@rein/runtime/testing";
import { claimQueueShards } from "../src/roles/queue-shard-claim.ts";

describe("claiming the deployment's queue shard count", () => {
  let runtime: TestRuntime;
  const others: ReinRuntime[] = [];
  /** A process of the same deployment (same Redis and prefix) configured with `shards`. */
  const withShards = (shards: number) => {
    const other = createRuntime({ ...runtime.config, queues: { ...runtime.config.queues, shards } }, { logLevel: "silent" });
    others.push(other);
    return other;
  };
  afterEach(async () => {
    for (const other of others.splice(0)) await other.close();
    await runtime?.cleanup();
  });

  it("lets every process of one count start, and records it", async () => {
    runtime = await createTestRuntime({ queues: { shards: 3 } });
    await claimQueueShards(runtime);
    await claimQueueShards(withShards(3));
    expect(await runtime.redis.get(runtime.keys.queueShardCount())).toBe("3");
  });

  it("refuses another count while a run is in flight, naming both counts and what to do", async () => {
    runtime = await createTestRuntime({ queues: { shards: 3 } });
    await claimQueueShards(runtime);
    await runtime.redis.zadd(runtime.keys.activeRuns(), Date.now(), "run_inflight");
    await expect(claimQueueShards(withShards(1))).rejects.toMatchObject({
      code: "config_invalid",
      message: expect.stringMatching(
        /queues\.shards is 1 here but 3 on this Redis, where 1 run\(s\) in flight .* expected queues\.shards 3/,
      ),
    });
    expect(await runtime.redis.get(runtime.keys.queueShardCount())).toBe("3");
  });

  it("takes a new count when no run is in flight", async () => {
    runtime = await createTestRuntime({ queues: { shards: 3 } });
    await claimQueueShards(runtime);
    await claimQueueShards(withShards(6));
    expect(await runtime.redis.get(runtime.keys.queueShardCount())).toBe("6");
  });
});
