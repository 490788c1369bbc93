import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Worker } from "bullmq";
import { type ControlEvent, jobIds, type ModelProvider, type PlanJob, ScriptedProvider, findTraceEvent } from "@rein/core";
import { countingProvider, createTestRuntime, recordSentControl, type TestRuntime, until } from "@rein/core/testing";
import { startPlanConsumer } from "../src/plan-consumer.ts";

const concrete = { current_step: { title: "Read pool metrics", objective: "Query db_pool_in_use for the last 15 minutes.", tools: ["query_metrics"] } };
const jobOf = (runId: string): PlanJob => ({
  runId,
  planNo: 2,
  context: { goal: "Why does payment-api fail?", grantedTools: ["query_metrics"], completedSteps: [], evidence: [], lessons: [], knownEvidenceIds: [] },
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

const storeRun = (runId: string, status: string) => runtime.redis.hset(runtime.keys.run(runId), "state", JSON.stringify({ status, planCount: 2, steps: [] }));

const start = (provider: ModelProvider, stalled?: { lockDuration: number }) => {
  consumer = startPlanConsumer(runtime, { providerFor: () => provider, lessonsFor: async () => [] }, { concurrency: 1, stalled });
  return consumer;
};

describe("plan consumer intake", () => {
  it("drops a plan job whose run has ended: no model call, no plan event, a plan.dropped trace", async () => {
    await storeRun("run_ended", "done");
    const provider = countingProvider(new ScriptedProvider({ planner: [{ turns: [{ output: concrete }] }] }));
    const worker = start(provider);
    const completed = new Promise<void>((resolve) => worker.once("completed", () => resolve()));
    await runtime.queues.sendPlan(jobOf("run_ended"));
    await completed;
    expect(provider.calls).toBe(0);
    expect(sent).toEqual([]);
    const events = await runtime.trace.read("run_ended");
    expect(events.map((event) => event.kind)).toEqual(["plan.dropped"]);
    expect(findTraceEvent(events, "plan.dropped")?.payload.reason).toMatch(/already ended \(done\)/);
  });

  it("runs the plan job its run waits for", async () => {
    await storeRun("run_live", "planning");
    start(countingProvider(new ScriptedProvider({ planner: [{ turns: [{ output: concrete }] }] })));
    await runtime.queues.sendPlan(jobOf("run_live"));
    await until("plan.ready", () => sent.length > 0);
    expect(sent.map((event) => event.type)).toEqual(["plan.ready"]);
  });
});

describe("a plan worker whose job lock lapses", () => {
  it("sends no plan and leaves the job for another worker", async () => {
    const runId = "run_lapsed";
    await storeRun(runId, "planning");
    const jobId = jobIds.plan(runId, 2);
    const lockKey = `${runtime.keys.queuePrefix()}:plan:${jobId}:lock`;
    let renewalFailed = false;
    // During the model call the lock vanishes (as after a Redis outage longer than the lock):
    // the call returns only once BullMQ has failed to renew it.
    const provider = countingProvider(new ScriptedProvider({ planner: [{ turns: [{ output: concrete }] }] }), async () => {
      await runtime.redis.del(lockKey);
      await until("a failed lock renewal", () => renewalFailed);
    });
    const worker = start(provider, { lockDuration: 1000 });
    worker.on("lockRenewalFailed", (ids) => {
      if (ids.includes(jobId)) renewalFailed = true;
    });
    const gaveUp = new Promise<void>((resolve) => {
      const logger = runtime.logger as unknown as { warn: (...args: unknown[]) => void };
      const warn = logger.warn.bind(logger);
      logger.warn = (...args: unknown[]) => {
        if (args.includes("plan job lost its lock; stopped without writing")) resolve();
        warn(...args);
      };
    });
    await runtime.queues.sendPlan(jobOf(runId));
    await gaveUp;
    expect(provider.calls).toBe(1);
    expect(sent).toEqual([]);
    expect(await runtime.queues.plan.getJobState(jobId)).toBe("active");
  });
});
