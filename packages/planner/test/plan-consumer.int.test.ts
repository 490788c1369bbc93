import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ControlEvent, PlanJob } from "@rein/contracts/messages";
import type { RunEvents } from "@rein/consumer";
import { type ModelProvider, ScriptedProvider } from "@rein/models";
import { jobIds } from "@rein/runtime";
import { findTraceEvent } from "@rein/trace";
import { until } from "@rein/contracts/testing";
import { countingProvider } from "@rein/models/testing";
import { consumerPerTest, lapsingLock, warningsLogged } from "@rein/runtime/testing";
import { startPlanConsumer } from "../src/plan-consumer.ts";

const concrete = {
  current_step: { title: "Read pool metrics", objective: "Query db_pool_in_use for the last 15 minutes.", tools: ["query_metrics"] },
};
const jobOf = (runId: string): PlanJob => ({
  runId,
  planNo: 2,
  context: {
    goal: "Why does payment-api fail?",
    grantedTools: ["query_metrics"],
    completedSteps: [],
    evidence: [],
    lessons: [],
    knownEvidenceIds: [],
  },
});

const fixture = consumerPerTest({ beforeEach, afterEach });

const storeRun = (runId: string, status: string) =>
  fixture.runtime.redis.hset(fixture.runtime.keys.run(runId), "state", JSON.stringify({ status, planCount: 2, steps: [] }));

const start = (provider: ModelProvider, stalled?: { lockDuration: number }, events?: RunEvents) => {
  fixture.consumer = startPlanConsumer(
    fixture.runtime,
    { providerFor: () => provider, lessonsFor: async () => [] },
    { concurrency: 1, stalled, events },
  );
  return fixture.consumer;
};

describe("plan consumer intake", () => {
  it("drops a plan job whose run has ended: no model call, no plan event, a plan.dropped trace", async () => {
    await storeRun("run_ended", "done");
    const provider = countingProvider(new ScriptedProvider({ planner: [{ turns: [{ output: concrete }] }] }));
    const worker = start(provider);
    const completed = new Promise<void>((resolve) => worker.once("completed", () => resolve()));
    await fixture.runtime.queues.sendPlan(jobOf("run_ended"));
    await completed;
    expect(provider.calls).toBe(0);
    expect(fixture.sent).toEqual([]);
    const events = await fixture.runtime.trace.read("run_ended");
    expect(events.map((event) => event.kind)).toEqual(["plan.dropped"]);
    expect(findTraceEvent(events, "plan.dropped")?.payload.reason).toMatch(/already ended \(done\)/);
  });

  it("runs the plan job its run waits for", async () => {
    await storeRun("run_live", "planning");
    start(countingProvider(new ScriptedProvider({ planner: [{ turns: [{ output: concrete }] }] })));
    await fixture.runtime.queues.sendPlan(jobOf("run_live"));
    await until("plan.ready", () => fixture.sent.length > 0);
    expect(fixture.sent.map((event) => event.type)).toEqual(["plan.ready"]);
  });
});

describe("a plan worker whose job lock lapses", () => {
  it("sends no plan and leaves the job for another worker", async () => {
    const runId = "run_lapsed";
    await storeRun(runId, "planning");
    const jobId = jobIds.plan(runId, 2);
    const lock = lapsingLock(fixture.runtime, "plan", { runId, jobId });
    // During the model call the lock vanishes; the call returns only once BullMQ has failed to renew it.
    const provider = countingProvider(new ScriptedProvider({ planner: [{ turns: [{ output: concrete }] }] }), lock.vanish);
    lock.watch(start(provider, { lockDuration: 1000 }));
    const warnings = warningsLogged(fixture.runtime);
    await fixture.runtime.queues.sendPlan(jobOf(runId));
    await until("the worker to give the job up", () => warnings.includes("plan job lost its lock; stopped without writing"));
    expect(provider.calls).toBe(1);
    expect(fixture.sent).toEqual([]);
    expect(await fixture.runtime.queues.plan.getJobState(jobId)).toBe("active");
  });
});

describe("what a plan job records", () => {
  const kindsOf = (encoded: readonly string[]) => encoded.map((event) => (JSON.parse(event) as { kind: string }).kind);

  it("writes the model's answer with the plan, in the write that applies it, and the call as it starts", async () => {
    const runId = "run_held";
    await storeRun(runId, "planning");
    const applied: { event: ControlEvent; trace: readonly string[]; stored: string[] }[] = [];
    start(new ScriptedProvider({ planner: [{ turns: [{ output: concrete }] }] }), undefined, {
      apply: async (event, trace = []) => {
        applied.push({ event, trace, stored: (await fixture.runtime.trace.read(runId)).map((stored) => stored.kind) });
      },
    });
    await fixture.runtime.queues.sendPlan(jobOf(runId));
    await until("the plan applied", () => applied.length > 0);
    const [{ event, trace, stored }] = applied as [(typeof applied)[0]];
    expect(event.type).toBe("plan.ready");
    expect(stored).toEqual(["model.called"]);
    expect(kindsOf(trace)).toEqual(["model.responded"]);
  });

  it("still writes the model's answer when the plan cannot be applied, before the job fails", async () => {
    const runId = "run_unapplied";
    await storeRun(runId, "planning");
    let tries = 0;
    const worker = start(new ScriptedProvider({ planner: [{ turns: [{ output: concrete }] }] }), undefined, {
      apply: async () => {
        tries += 1;
        throw new Error("Redis went away mid-apply");
      },
    });
    const failed = new Promise<void>((resolve) => worker.once("failed", () => resolve()));
    await fixture.runtime.queues.sendPlan(jobOf(runId));
    await failed;
    expect(tries).toBe(1);
    const kinds = (await fixture.runtime.trace.read(runId)).map((stored) => stored.kind);
    expect(kinds).toEqual(["model.called", "model.responded"]);
  });
});
