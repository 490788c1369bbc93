import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Worker } from "bullmq";
import { type ControlEvent, type FinalAnswerEvaluateJob, findTraceEvent, jobIds, type ModelProvider, ScriptedProvider, StepSpec, type StepEvaluateJob, type WorkerTiming } from "@rein/core";
import { countingProvider, createTestRuntime, recordSentControl, type TestRuntime, until } from "@rein/core/testing";
import { startEvaluateConsumer } from "../src/evaluate-consumer.ts";

const finalJob = (runId: string): FinalAnswerEvaluateJob => ({
  kind: "final",
  runId,
  stepId: "final",
  attempt: 1,
  answer: { answer: "the pool is exhausted", claims: [], gaps: [] },
  evidence: [],
  goal: "Why does payment-api fail?",
});

let runtime: TestRuntime;
let consumer: Worker | undefined;
let sent: ControlEvent[];
beforeEach(async () => {
  runtime = await createTestRuntime();
  sent = recordSentControl(runtime.queues);
});
afterEach(async () => {
  await consumer?.close(true);
  consumer = undefined;
  await runtime.cleanup();
});

const storeRun = (runId: string, status: string) =>
  runtime.redis.hset(runtime.keys.run(runId), "state", JSON.stringify({ status, steps: [], proposal: { attempt: 1, phase: "evaluating" } }));

async function judged(runId: string): Promise<void> {
  consumer = startEvaluateConsumer({ runtime, concurrency: 1 });
  const completed = new Promise<void>((resolve) => consumer?.once("completed", () => resolve()));
  await runtime.queues.sendEvaluate(finalJob(runId));
  await completed;
}

describe("evaluate consumer intake", () => {
  it("drops a verdict job whose run has ended: no verdict sent, an evaluate.dropped trace", async () => {
    await storeRun("run_ended", "cancelled");
    await judged("run_ended");
    expect(sent).toEqual([]);
    const events = await runtime.trace.read("run_ended");
    expect(events.map((event) => event.kind)).toEqual(["evaluate.dropped"]);
    expect(findTraceEvent(events, "evaluate.dropped")?.payload.reason).toMatch(/already ended \(cancelled\)/);
  });

  it("judges the final answer its run waits for", async () => {
    await storeRun("run_live", "evaluating");
    await judged("run_live");
    expect(sent.map((event) => event.type)).toEqual(["verdict.ready"]);
  });
});

/** A completed step whose planner flagged a risk: the rules pass, so the judge is asked. */
const judgedStepJob = (runId: string): StepEvaluateJob => ({
  kind: "step",
  runId,
  stepId: "s1",
  attempt: 1,
  spec: StepSpec.parse({ title: "Read the pool size", objective: "Say how large the pool is.", output_contract: { description: "one line", format: "text" } }),
  result: {
    schemaVersion: 1,
    runId,
    stepId: "s1",
    attempt: 1,
    status: "completed",
    output: "the pool holds 50 connections",
    summary: "the pool holds 50 connections",
    claims: [],
    observations: [],
    toolCalls: [],
    fingerprints: [],
    usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 },
    turns: 1,
  },
  knownEvidenceIds: [],
  evidence: [],
  priorFingerprints: [],
  priorFailedFingerprints: [],
  goal: "How large is the pool?",
  risks: ["the size read is a stale cache"],
  policy: [],
});

describe("an evaluate worker whose job lock lapses", () => {
  it("sends no verdict and leaves the job for another worker", async () => {
    const runId = "run_lapsed";
    await runtime.redis.hset(runtime.keys.run(runId), "state", JSON.stringify({ status: "evaluating", steps: [{ stepId: "s1", attempt: 1, phase: "evaluating" }] }));
    const jobId = jobIds.evaluate(runId, "s1", 1);
    const lockKey = `${runtime.keys.queuePrefix()}:evaluate:${jobId}:lock`;
    let renewalFailed = false;
    // During the judge's call the lock vanishes (as after a Redis outage longer than the lock):
    // the call returns only once BullMQ has failed to renew it.
    const judge: ModelProvider & { calls: number } = countingProvider(new ScriptedProvider({ judge: [{ turns: [{ output: { verdict: "pass", reasons: ["fresh"], risks_hit: [] } }] }] }), async () => {
      await runtime.redis.del(lockKey);
      await until("a failed lock renewal", () => renewalFailed);
    });
    const stalled: WorkerTiming = { lockDuration: 1000 };
    consumer = startEvaluateConsumer({ runtime, judge, concurrency: 1, stalled });
    consumer.on("lockRenewalFailed", (ids) => {
      if (ids.includes(jobId)) renewalFailed = true;
    });
    const gaveUp = new Promise<void>((resolve) => {
      const logger = runtime.logger as unknown as { warn: (...args: unknown[]) => void };
      const warn = logger.warn.bind(logger);
      logger.warn = (...args: unknown[]) => {
        if (args.includes("evaluate job lost its lock; stopped without writing")) resolve();
        warn(...args);
      };
    });
    await runtime.queues.sendEvaluate(judgedStepJob(runId));
    await gaveUp;
    expect(judge.calls).toBe(1);
    expect(sent).toEqual([]);
    expect(await runtime.queues.evaluate.getJobState(jobId)).toBe("active");
  });
});
