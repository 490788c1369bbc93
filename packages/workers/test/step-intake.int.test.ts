import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { jobIds } from "@rein/core";
import { createTestRuntime, type TestRuntime } from "@rein/core/testing";
import { staleReason } from "../src/step-intake.ts";

let runtime: TestRuntime;
beforeEach(async () => {
  runtime = await createTestRuntime();
});
afterEach(async () => {
  await runtime.cleanup();
});

const body = { runId: "run_1", stepId: "step_1", attempt: 2 };
/** The run as intake reads it (status and steps), as the controller left it. */
const store = (status: string, step: { attempt?: number; phase?: string; resumes?: number } | null) =>
  runtime.redis.hset(
    runtime.keys.run("run_1"),
    "state",
    JSON.stringify({ status, steps: step ? [{ stepId: "step_1", attempt: step.attempt ?? 2, phase: step.phase ?? "dispatched", resumes: step.resumes ?? 0 }] : [] }),
  );
const reason = (jobId = jobIds.step("run_1", "step_1", 2)) => staleReason(runtime.redis, runtime.keys, jobId, body);

describe("step intake", () => {
  it("takes the job the run is waiting for", async () => {
    await store("dispatching", { phase: "dispatched" });
    expect(await reason()).toBeUndefined();
    await store("executing", { phase: "executing", resumes: 1 });
    expect(await reason(jobIds.step("run_1", "step_1", 2, 1))).toBeUndefined();
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
