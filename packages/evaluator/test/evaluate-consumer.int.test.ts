import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { StepSpec } from "@rein/contracts";
import type { FinalAnswerEvaluateJob, StepEvaluateJob } from "@rein/contracts/messages";
import { type ModelProvider, ScriptedProvider } from "@rein/models";
import { jobIds } from "@rein/runtime";
import type { WorkerTiming } from "@rein/consumer";
import { findTraceEvent } from "@rein/trace";
import { until } from "@rein/contracts/testing";
import { countingProvider } from "@rein/models/testing";
import { consumerPerTest, lapsingLock, warningsLogged } from "@rein/runtime/testing";
import { startEvaluateConsumer } from "../src/evaluate-consumer.ts";
import { completedStepResult } from "./support/evaluate-fixtures.ts";

const finalJob = (runId: string): FinalAnswerEvaluateJob => ({
  kind: "final",
  runId,
  stepId: "final",
  attempt: 1,
  answer: { answer: "the pool is exhausted", claims: [], gaps: [] },
  evidence: [],
  goal: "Why does payment-api fail?",
});

const fixture = consumerPerTest({ beforeEach, afterEach });

const storeRun = (runId: string, status: string) =>
  fixture.runtime.redis.hset(
    fixture.runtime.keys.run(runId),
    "state",
    JSON.stringify({ status, steps: [], proposal: { attempt: 1, phase: "evaluating" } }),
  );

async function judged(runId: string): Promise<void> {
  const consumer = startEvaluateConsumer({ runtime: fixture.runtime, concurrency: 1 });
  fixture.consumer = consumer;
  const completed = new Promise<void>((resolve) => consumer.once("completed", () => resolve()));
  await fixture.runtime.queues.sendEvaluate(finalJob(runId));
  await completed;
}

describe("evaluate consumer intake", () => {
  it("drops a verdict job whose run has ended: no verdict sent, an evaluate.dropped trace", async () => {
    await storeRun("run_ended", "cancelled");
    await judged("run_ended");
    expect(fixture.sent).toEqual([]);
    const events = await fixture.runtime.trace.read("run_ended");
    expect(events.map((event) => event.kind)).toEqual(["evaluate.dropped"]);
    expect(findTraceEvent(events, "evaluate.dropped")?.payload.reason).toMatch(/already ended \(cancelled\)/);
  });

  it("judges the final answer its run waits for", async () => {
    await storeRun("run_live", "evaluating");
    await judged("run_live");
    expect(fixture.sent.map((event) => event.type)).toEqual(["verdict.ready"]);
  });

  it("writes the claims it checked with the verdict, in the write that applies it, not on their own", async () => {
    await storeRun("run_held", "evaluating");
    const applied: { type: string; held: string[]; stored: string[] }[] = [];
    const consumer = startEvaluateConsumer({
      runtime: fixture.runtime,
      concurrency: 1,
      events: {
        apply: async (event, trace = []) => {
          const stored = (await fixture.runtime.trace.read("run_held")).map((stored) => stored.kind);
          applied.push({ type: event.type, held: trace.map((held) => (JSON.parse(held) as { kind: string }).kind), stored });
        },
      },
    });
    fixture.consumer = consumer;
    const completed = new Promise<void>((resolve) => consumer.once("completed", () => resolve()));
    await fixture.runtime.queues.sendEvaluate(finalJob("run_held"));
    await completed;
    expect(applied).toEqual([{ type: "verdict.ready", held: ["claims.checked"], stored: [] }]);
  });
});

/** A completed step whose planner flagged a risk: the rules pass, so the judge is asked. */
const judgedStepJob = (runId: string): StepEvaluateJob => ({
  kind: "step",
  runId,
  stepId: "s1",
  attempt: 1,
  spec: StepSpec.parse({
    title: "Read the pool size",
    objective: "Say how large the pool is.",
    output_contract: { description: "one line", format: "text" },
  }),
  result: completedStepResult(runId, "s1", "the pool holds 50 connections"),
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
    await fixture.runtime.redis.hset(
      fixture.runtime.keys.run(runId),
      "state",
      JSON.stringify({ status: "evaluating", steps: [{ stepId: "s1", attempt: 1, phase: "evaluating" }] }),
    );
    const jobId = jobIds.evaluate(runId, "s1", 1);
    const lock = lapsingLock(fixture.runtime, "evaluate", { runId, jobId });
    // During the judge's call the lock vanishes; the call returns only once BullMQ has failed to renew it.
    const judge: ModelProvider & { calls: number } = countingProvider(
      new ScriptedProvider({ judge: [{ turns: [{ output: { verdict: "pass", reasons: ["fresh"], risks_hit: [] } }] }] }),
      lock.vanish,
    );
    const stalled: WorkerTiming = { lockDuration: 1000 };
    fixture.consumer = startEvaluateConsumer({ runtime: fixture.runtime, judge, concurrency: 1, stalled });
    lock.watch(fixture.consumer);
    const warnings = warningsLogged(fixture.runtime);
    await fixture.runtime.queues.sendEvaluate(judgedStepJob(runId));
    await until("the worker to give the job up", () => warnings.includes("evaluate job lost its lock; stopped without writing"));
    expect(judge.calls).toBe(1);
    expect(fixture.sent).toEqual([]);
    expect(await fixture.runtime.queues.evaluate.getJobState(jobId)).toBe("active");
  });
});
