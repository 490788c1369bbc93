import { afterEach, describe, expect, it } from "vitest";
import { jobIds, type ReinRuntime, resultEventIds } from "@rein/core";
import { until } from "@rein/core/testing";
import { pruneRuns } from "../src/trace/prune-runs.ts";
import { type Harness, startHarness } from "./support/harness.ts";
import { probeGoal, probeScript, probeTool } from "./support/probe-run.ts";

const probe = probeTool({
  description: "Read a status value and its history. Read-only.",
  // Longer than an observation may be, so the full output is kept as an artifact of the run.
  output: (key) => `${key}: pending\n${"history: pending\n".repeat(2_000)}`,
});

const RUN_TTL_SECONDS = 3_600;

/** Every key under the runtime's prefix with its TTL in seconds (-1: none). */
async function keysWithTtl(runtime: ReinRuntime): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  let cursor = "0";
  do {
    const [next, keys] = await runtime.redis.scan(cursor, "MATCH", runtime.keys.pattern(), "COUNT", 1_000);
    cursor = next;
    for (const key of keys) found.set(key, await runtime.redis.ttl(key));
  } while (cursor !== "0");
  return found;
}

/**
 * Keys of the deployment, not of a run: a queue's own bookkeeping (bounded
 * by BullMQ: event streams are capped, finished-job sets by
 * `retention.jobs`), the run index (prune removes a run's entry), and the
 * lesson memory, which is meant to outlive runs.
 */
function isDeploymentKey(runtime: ReinRuntime, key: string): boolean {
  const queues = runtime.keys.queuePrefix();
  if (key.startsWith(`${queues}:`)) {
    const rest = key.slice(queues.length + 1).split(":");
    return rest.length === 2 && ["meta", "id", "events", "completed", "failed", "stalled-check", "wait", "paused", "prioritized", "delayed", "active", "marker", "pc", "stalled", "limiter", "repeat", "de"].includes(rest[1] as string);
  }
  return key === runtime.keys.runIndex() || key === runtime.keys.lessonIndex() || key.startsWith(`${runtime.config.prefix}:lesson:`) || key === runtime.keys.approvalIndex();
}

// A whole run through every role on a loaded machine: sized generously, not a timing assertion.
describe("what a finished run leaves in Redis", { timeout: 180_000 }, () => {
  let harness: Harness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  /** The probe run, done, and its end's effects performed. */
  async function finishedProbeRun() {
    harness = await startHarness(probeScript, [probe], { config: { retention: { runTtlSeconds: RUN_TTL_SECONDS } } });
    const runId = await harness.submit(probeGoal);
    const state = await harness.waitFor(runId);
    expect(state.status, state.stopReason).toBe("done");
    // The run's end is written before its effects are performed: wait for its deadline to leave the control queue.
    await until("the deadline to be withdrawn", async () => (await harness?.runtime.queues.control.getJob(`control-deadline-${runId}`)) === undefined);
    return { runtime: harness.runtime, runId };
  }

  it("every key expires (the run's within retention.runTtlSeconds) or is a deployment key; rein runs prune removes every key of the run", async () => {
    const { runtime, runId } = await finishedProbeRun();

    const left = await keysWithTtl(runtime);
    const lasting = [...left].filter(([key, ttl]) => ttl === -1 && !isDeploymentKey(runtime, key));
    const jobs = lasting.filter(([key]) => key.startsWith(`${runtime.keys.queuePrefix()}:`));
    // Finished jobs are kept a while by age and count (retention.jobs), so a replayed effect is recognised; prune removes them.
    expect(lasting.filter(([key]) => !jobs.some(([job]) => job === key))).toEqual([]);
    const artifacts = await runtime.redis.smembers(runtime.keys.runArtifacts(runId));
    expect(artifacts.length).toBeGreaterThan(0);
    const runKeys = [...left].filter(
      ([key]) => (key.includes(runId) || artifacts.some((artifactId) => key === runtime.keys.artifact(artifactId))) && !key.startsWith(`${runtime.keys.queuePrefix()}:`),
    );
    expect(runKeys.length).toBeGreaterThan(3 + artifacts.length);
    for (const [key, ttl] of runKeys) expect({ key, ttl: ttl > 0 && ttl <= RUN_TTL_SECONDS }).toEqual({ key, ttl: true });

    const pruned = await pruneRuns(runtime, { olderThanMs: 0, now: new Date(Date.now() + 1_000) });
    expect(pruned.pruned).toEqual([runId]);
    const after = await keysWithTtl(runtime);
    expect([...after.keys()].filter((key) => key.includes(runId) || artifacts.some((artifactId) => key === runtime.keys.artifact(artifactId)))).toEqual([]);
    expect([...after].filter(([key, ttl]) => ttl === -1 && !isDeploymentKey(runtime, key))).toEqual([]);
  });

  it("keeps no working copies once the run ends: step checkpoints, the tool cache and the jobs that carried the step's result are gone", async () => {
    const { runtime, runId } = await finishedProbeRun();

    const left = [...(await keysWithTtl(runtime)).keys()].filter((key) => key.includes(runId));
    // The step's owner key alone stays, expiring with the run: it fences a cut-off worker's last record.
    const ownerKey = `${runtime.keys.checkpoint(runId, "s1")}:owner`;
    expect(left.filter((key) => (key.startsWith(runtime.keys.checkpoint(runId, "s1")) && key !== ownerKey) || key === runtime.keys.toolCache(runId))).toEqual([]);
    expect(await runtime.queues.evaluate.getJob(jobIds.evaluate(runId, "s1", 1))).toBeUndefined();
    expect(await runtime.queues.control.getJob(jobIds.control(resultEventIds.stepFinished(jobIds.step(runId, "s1", 1))))).toBeUndefined();
    // What a person reads afterwards stays: the state and the whole trace.
    expect(left).toEqual(expect.arrayContaining([runtime.keys.run(runId), runtime.keys.trace(runId)]));
    expect((await runtime.trace.read(runId)).some((event) => event.kind === "observation.made")).toBe(true);
  });
});
