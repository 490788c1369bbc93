import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunState } from "@rein/contracts/run";
import { jobIds, resultEventIds } from "@rein/runtime";
import { until } from "@rein/contracts/testing";
import { type Harness, startHarness } from "../support/harness.ts";
import { probeGoal, probeScript, probeTool } from "../support/probe-run.ts";
import { queueOverview } from "../../src/api/queue-overview.ts";

const SHARDS = 3;
// Enough that the runs land on more than one shard: all 24 random ids on one is a 1-in-10^11 chance.
const RUNS = 24;

describe(`queues split into ${SHARDS} shards on one Redis`, { timeout: 180_000 }, () => {
  let harness: Harness;
  let runs: RunState[];

  beforeAll(async () => {
    harness = await startHarness(probeScript, [probeTool()], { config: { queues: { shards: SHARDS } } });
    const runIds = await Promise.all(Array.from({ length: RUNS }, () => harness.submit(probeGoal)));
    runs = await Promise.all(runIds.map((runId) => harness.waitFor(runId)));
  }, 180_000);
  afterAll(async () => {
    await harness?.close();
  });

  it("ends every run done, the runs spread over the shards", () => {
    expect(runs.map((run) => [run.status, run.stopReason])).toEqual(runs.map(() => ["done", "the evaluator verified the answer"]));
    const { keys } = harness.runtime;
    expect(new Set(runs.map((run) => keys.shardOf(run.runId))).size).toBeGreaterThan(1);
  });

  it("keeps each run's jobs on its own shard and on no other", async () => {
    const { keys, queues } = harness.runtime;
    const shardsHolding = async (queueOf: (shard: number) => Promise<boolean>) => {
      const held = await Promise.all(Array.from({ length: SHARDS }, (_, shard) => queueOf(shard)));
      return held.flatMap((present, shard) => (present ? [shard] : []));
    };
    for (const run of runs) {
      const step = jobIds.step(run.runId, "s1", 1);
      const plan = jobIds.plan(run.runId, 1);
      const submitted = jobIds.control(`submitted-${run.runId}`);
      const where = {
        step: await shardsHolding(async (shard) => (await queues.stepOf(undefined, shard).getJob(step)) !== undefined),
        plan: await shardsHolding(async (shard) => (await queues.named("plan", shard)?.getJob(plan)) !== undefined),
        control: await shardsHolding(async (shard) => (await queues.named("control", shard)?.getJob(submitted)) !== undefined),
      };
      const shard = keys.shardOf(run.runId);
      expect(where, run.runId).toEqual({ step: [shard], plan: [shard], control: [shard] });
    }
  });

  it("removes each ended run's finished step events from the run's own shard", async () => {
    const { keys, queues } = harness.runtime;
    // Retirement runs after the run's end is written; a run without a deadline has been retired.
    await until("every run retired", async () => (await harness.runtime.redis.zcard(keys.runDeadlines())) === 0);
    const left = [];
    for (const run of runs) {
      const finished = jobIds.control(resultEventIds.stepFinished(jobIds.step(run.runId, "s1", 1)));
      if (await queues.named("control", keys.shardOf(run.runId))?.getJob(finished)) left.push(run.runId);
    }
    expect(left).toEqual([]);
  });

  it("shows each queue once in the queues view, its counts summed over the shards", async () => {
    const overview = await queueOverview(harness.runtime);
    expect(overview.queues.map((queue) => queue.queue)).toEqual(["control", "plan", "step", "evaluate"]);
    // Every role's consumer listens on every shard of its queue.
    const consumers = await Promise.all(
      harness.runtime.queues.all().map(async (queue) => [queue.opts.prefix, queue.name, await queue.getWorkersCount()]),
    );
    expect(consumers.filter(([, , count]) => count === 0)).toEqual([]);
    expect(consumers).toHaveLength(SHARDS * 4);
  });
});
