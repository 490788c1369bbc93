import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { jobIds, resultEventIds, type AwaitingRun, awaitedJobs } from "@rein/runtime";
import { admitJob } from "../src/index.ts";
import { type IntakeJob, staleJobReason } from "../src/job-intake.ts";
import { createTestRuntime, type TestRuntime } from "@rein/runtime/testing";

let runtime: TestRuntime;
beforeEach(async () => {
  runtime = await createTestRuntime();
});
afterEach(async () => {
  await runtime.cleanup();
});

interface StoredStep {
  attempt?: number;
  phase?: string;
  resumes?: number;
  awaitingContext?: string;
}

// Each case runs against a run as the run store writes it (the state, with its status and the
// jobs it awaits beside it) and against a run stored with the state alone (written before those fields).
describe.each([
  { stored: "with its status and awaited jobs", fields: true },
  { stored: "as its state alone", fields: false },
])("a run stored $stored", ({ fields }) => {
  /** The run as intake reads it, as the controller left it. */
  const store = (status: string, step: StoredStep | null, extra: Record<string, unknown> = {}) => {
    const state = {
      runId: "run_1",
      status,
      planCount: 2,
      steps: step
        ? [
            {
              stepId: "step_1",
              attempt: step.attempt ?? 2,
              phase: step.phase ?? "dispatched",
              resumes: step.resumes ?? 0,
              awaitingContext: step.awaitingContext,
            },
          ]
        : [],
      ...extra,
    };
    const beside = fields ? { status, awaiting: JSON.stringify(awaitedJobs(state as AwaitingRun)) } : {};
    return runtime.redis.hset(runtime.keys.run("run_1"), { state: JSON.stringify(state), ...beside });
  };
  const stepJob = (jobId = jobIds.step("run_1", "step_1", 2)): IntakeJob => ({
    kind: "step",
    jobId,
    runId: "run_1",
    stepId: "step_1",
    attempt: 2,
  });
  const reason = (job: IntakeJob = stepJob()) => staleJobReason(runtime.redis, runtime.keys, job);

  describe("step intake", () => {
    it("takes the job the run is waiting for", async () => {
      await store("dispatching", { phase: "dispatched" });
      expect(await reason()).toBeUndefined();
      await store("executing", { phase: "executing", resumes: 1 });
      expect(await reason(stepJob(jobIds.step("run_1", "step_1", 2, 1)))).toBeUndefined();
    });

    it("drops a job whose result its worker already sent, before it was applied", async () => {
      await store("executing", { phase: "executing" });
      // The step's finished event, as the step worker sends it, waiting on the evaluate queue: the worker's
      // job stalled after it sent its result and before it completed, and was handed to another worker.
      const finished = jobIds.stepResult(resultEventIds.stepFinished(jobIds.step("run_1", "step_1", 2)));
      await runtime.redis.hset(runtime.keys.job("evaluate", finished, "run_1"), { name: "step.finished", data: "{}" });
      expect(await reason()).toMatch(/its result was already sent \(event finished-step-run_1-step_1-2\)/);
    });

    it("drops a job whose run is gone, ended, or no longer has the step on this attempt", async () => {
      expect(await reason()).toMatch(/no longer exists/);
      await store("cancelled", { phase: "cancelled" });
      expect(await reason()).toMatch(/already ended \(cancelled\)/);
      await store("executing", null);
      expect(await reason()).toMatch(/has no step step_1/);
      await store("executing", { attempt: 3 });
      expect(await reason()).toMatch(/on attempt 3, not 2/);
    });

    it("drops a job whose result was applied, or whose step was dispatched again since", async () => {
      await store("waiting_approval", { phase: "suspended" });
      expect(await reason()).toMatch(/suspended: its result was already applied/);
      await store("dispatching", { phase: "dispatched", resumes: 1 });
      expect(await reason()).toMatch(/dispatched again as job step-run_1-step_1-2-r1/);
    });
  });

  describe("plan, context and evaluate intake", () => {
    const plan: IntakeJob = { kind: "plan", runId: "run_1", planNo: 2 };
    const context: IntakeJob = { kind: "context", runId: "run_1", stepId: "step_1", attempt: 2 };
    const evaluate: IntakeJob = { kind: "evaluate", runId: "run_1", stepId: "step_1", attempt: 2 };
    const final: IntakeJob = { kind: "final", runId: "run_1", attempt: 1 };

    it("takes a plan job only while the run waits for that plan", async () => {
      await store("planning", null);
      expect(await reason(plan)).toBeUndefined();
      expect(await reason({ ...plan, planNo: 1 })).toMatch(/not waiting for plan 1/);
      await store("executing", { phase: "executing" });
      expect(await reason(plan)).toMatch(/not waiting for plan 2 \(executing/);
      await store("done", null);
      expect(await reason(plan)).toMatch(/already ended \(done\)/);
      await store("escalated", null);
      expect(await reason(plan)).toMatch(/already ended \(escalated\)/);
    });

    it("takes a context job only while its step still waits for the answer", async () => {
      await store("executing", { phase: "suspended", awaitingContext: "which file?" });
      expect(await reason(context)).toBeUndefined();
      await store("executing", { phase: "dispatched" });
      expect(await reason(context)).toMatch(/no longer waits for an answer/);
      await store("executing", { attempt: 3, phase: "suspended", awaitingContext: "which file?" });
      expect(await reason(context)).toMatch(/on attempt 3, not 2/);
    });

    it("takes an evaluate job only while its step, or the final answer, waits for that verdict", async () => {
      await store("evaluating", { phase: "evaluating" });
      expect(await reason(evaluate)).toBeUndefined();
      await store("planning", { phase: "completed" });
      expect(await reason(evaluate)).toMatch(/completed: it is not waiting for a verdict/);
      await store("evaluating", null, { proposal: { attempt: 1, phase: "evaluating" } });
      expect(await reason(final)).toBeUndefined();
      expect(await reason({ ...final, attempt: 2 })).toMatch(/not waiting for a verdict on final answer 2/);
      await store("failed", null, { proposal: { attempt: 1, phase: "evaluating" } });
      expect(await reason(final)).toMatch(/already ended \(failed\)/);
    });

    it("drops a stale job into its run's trace, and admits a current one without a trace", async () => {
      await store("planning", null);
      expect(await admitJob(runtime, "plan-run_1-2", plan)).toBe(true);
      expect(await admitJob(runtime, "evaluate-run_1-step_1-2", evaluate)).toBe(false);
      await store("done", null);
      expect(await admitJob(runtime, "plan-run_1-2", plan)).toBe(false);
      const dropped = (await runtime.trace.read("run_1")).map((event) => ({
        kind: event.kind,
        stepId: event.stepId,
        jobId: "jobId" in event.payload ? event.payload.jobId : undefined,
      }));
      expect(dropped).toEqual([
        { kind: "evaluate.dropped", stepId: "step_1", jobId: "evaluate-run_1-step_1-2" },
        { kind: "plan.dropped", stepId: null, jobId: "plan-run_1-2" },
      ]);
    });
  });
});

describe("intake of a run saved by the run store", () => {
  it("admits the awaited job from the fields beside the state, without reading the state", async () => {
    const state = {
      runId: "run_1",
      status: "dispatching" as const,
      planCount: 1,
      steps: [{ stepId: "step_1", attempt: 1, phase: "dispatched" as const, resumes: 0 }],
    };
    // A state no reader could parse: only a check that never reads it admits the job.
    await runtime.redis.hset(runtime.keys.run("run_1"), {
      state: "not json",
      status: state.status,
      awaiting: JSON.stringify(awaitedJobs(state)),
    });
    const job: IntakeJob = { kind: "step", jobId: jobIds.step("run_1", "step_1", 1), runId: "run_1", stepId: "step_1", attempt: 1 };
    expect(await staleJobReason(runtime.redis, runtime.keys, job)).toBeUndefined();
    await runtime.redis.hset(runtime.keys.run("run_1"), "status", "cancelled");
    expect(await staleJobReason(runtime.redis, runtime.keys, job)).toMatch(/already ended \(cancelled\)/);
  });
});
