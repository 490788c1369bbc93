import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Worker } from "bullmq";
import { type ControlEvent, type FinalAnswerEvaluateJob, findTraceEvent } from "@rein/core";
import { createTestRuntime, recordSentControl, type TestRuntime } from "@rein/core/testing";
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
