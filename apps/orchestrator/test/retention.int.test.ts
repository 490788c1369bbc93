import { describe, expect, it } from "vitest";
import { jobIds, resultEventIds } from "@rein/runtime";
import { until } from "@rein/contracts/testing";
import { TraceFold } from "../src/metrics/trace-fold.ts";
import { answerQuestions } from "../src/trace/trace-check.ts";
import { pruneRuns } from "../src/trace/prune-runs.ts";
import { harnessesPerTest } from "./support/harnesses-per-test.ts";
import { isDeploymentKey, keysWithTtl } from "./support/keys-left.ts";
import { probeGoal, probeScript, probeTool } from "./support/probe-run.ts";

const probe = probeTool({
  description: "Read a status value and its history. Read-only.",
  // Longer than an observation may be, so the full output is kept as an artifact of the run.
  output: (key) => `${key}: pending\n${"history: pending\n".repeat(2_000)}`,
});

const RUN_TTL_SECONDS = 3_600;

// A whole run through every role on a loaded machine: sized generously, not a timing assertion.
describe("what a finished run leaves in Redis", { timeout: 180_000 }, () => {
  const harnesses = harnessesPerTest();

  /** The probe run, done, and its end's effects performed. */
  async function finishedProbeRun(retention: Record<string, unknown> = {}) {
    const harness = await harnesses.start(probeScript, [probe], {
      config: { retention: { runTtlSeconds: RUN_TTL_SECONDS, ...retention } },
    });
    const runId = await harness.submit(probeGoal);
    const state = await harness.waitFor(runId);
    expect(state.status, state.stopReason).toBe("done");
    // The run's end is written before its effects are performed: its deadline, forgotten last, says retirement is done.
    await until(
      "the deadline to be forgotten",
      async () => (await harness?.runtime.redis.zscore(harness.runtime.keys.runDeadlines(), runId)) === null,
    );
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
      ([key]) =>
        (key.includes(runId) || artifacts.some((artifactId) => key === runtime.keys.artifact(artifactId))) &&
        !key.startsWith(`${runtime.keys.queuePrefix()}:`),
    );
    expect(runKeys.length).toBeGreaterThan(3 + artifacts.length);
    for (const [key, ttl] of runKeys) expect({ key, ttl: ttl > 0 && ttl <= RUN_TTL_SECONDS }).toEqual({ key, ttl: true });

    const pruned = await pruneRuns(runtime, { olderThanMs: 0, now: new Date(Date.now() + 1_000) });
    expect(pruned.pruned).toEqual([runId]);
    const after = await keysWithTtl(runtime);
    expect(
      [...after.keys()].filter((key) => key.includes(runId) || artifacts.some((artifactId) => key === runtime.keys.artifact(artifactId))),
    ).toEqual([]);
    expect([...after].filter(([key, ttl]) => ttl === -1 && !isDeploymentKey(runtime, key))).toEqual([]);
  });

  it("keeps no working copies once the run ends: step checkpoints, the tool cache and the jobs that carried the step's result are gone", async () => {
    const { runtime, runId } = await finishedProbeRun();

    const left = [...(await keysWithTtl(runtime)).keys()].filter((key) => key.includes(runId));
    // The step's owner key alone stays, expiring with the run: it fences a cut-off worker's last record.
    const ownerKey = `${runtime.keys.checkpoint(runId, "s1")}:owner`;
    expect(
      left.filter(
        (key) => (key.startsWith(runtime.keys.checkpoint(runId, "s1")) && key !== ownerKey) || key === runtime.keys.toolCache(runId),
      ),
    ).toEqual([]);
    expect(await runtime.queues.evaluate.getJob(jobIds.evaluate(runId, "s1", 1))).toBeUndefined();
    const finished = resultEventIds.stepFinished(jobIds.step(runId, "s1", 1));
    // The step's result as its worker sent it (the evaluate queue) and as the evaluator without the key passed it on.
    expect(await runtime.queues.evaluate.getJob(jobIds.stepResult(finished))).toBeUndefined();
    expect(await runtime.queues.control.getJob(jobIds.control(finished))).toBeUndefined();
    // What a person reads afterwards stays: the state and the whole trace.
    expect(left).toEqual(expect.arrayContaining([runtime.keys.run(runId), runtime.keys.trace(runId)]));
    expect((await runtime.trace.read(runId)).some((event) => event.kind === "observation.made")).toBe(true);
  });

  it("packs the finished run's trace into chunks that read back as the whole run, each trace question still answered", async () => {
    const { runtime, runId } = await finishedProbeRun({ traceCompaction: { minEvents: 1, chunkBytes: 4_096 } });

    const entries = await runtime.redis.xrange(runtime.keys.trace(runId), "-", "+");
    const events = await runtime.trace.read(runId);
    expect(entries.length).toBeGreaterThan(1);
    expect(entries.length).toBeLessThan(events.length / 3);
    expect(entries.every(([, fields]) => fields[0] === "seqs" && fields[2] === "events")).toBe(true);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    expect([events[0]?.kind, events.at(-1)?.kind]).toEqual(["run.submitted", "run.done"]);
    expect(answerQuestions(events, await runtime.trace.readBlobs(runId)).filter((answer) => !answer.answered)).toEqual([]);
    expect(await runtime.redis.ttl(runtime.keys.trace(runId))).toBeGreaterThan(0);
  });

  it("forgets a run in the run index and the metrics cursors once its keys have expired, when a later run retires", async () => {
    const harness = await harnesses.start(probeScript, [probe], { config: { retention: { runTtlSeconds: RUN_TTL_SECONDS } } });
    const { runtime } = harness;
    const first = await harness.submit(probeGoal);
    expect((await harness.waitFor(first)).status).toBe("done");
    await until("the first run's retirement", async () => (await runtime.redis.zscore(runtime.keys.runExpiries(), first)) !== null);
    await new TraceFold(runtime).totalsNow();
    expect(await runtime.redis.hget(runtime.keys.metricsCursors(), first)).toBe("end");
    // As if retention.runTtlSeconds had passed: its keys are gone and it is due to be forgotten.
    await runtime.redis.del(runtime.keys.run(first));
    await runtime.redis.zadd(runtime.keys.runExpiries(), "XX", Date.now() - 1_000, first);

    const second = await harness.submit(probeGoal);
    expect((await harness.waitFor(second)).status).toBe("done");
    // A retirement notes its own expiry before it forgets expired runs, and drops their expiry notes last: wait for both.
    await until(
      "the second run's retirement to forget the first",
      async () =>
        (await runtime.redis.zscore(runtime.keys.runExpiries(), second)) !== null &&
        (await runtime.redis.zscore(runtime.keys.runExpiries(), first)) === null,
    );
    expect(await runtime.redis.zrange(runtime.keys.runIndex(), 0, -1)).toEqual([second]);
    expect(await runtime.redis.zrange(runtime.keys.runExpiries(), 0, -1)).toEqual([second]);
    expect(await runtime.redis.hget(runtime.keys.metricsCursors(), first)).toBeNull();
  });
});
