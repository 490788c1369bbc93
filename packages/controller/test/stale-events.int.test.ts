import type { Job, Worker } from "bullmq";
import { describe, expect, it } from "vitest";
import { generatePacketKeys } from "@rein/signing";
import { createTestRuntime, type TestRuntime } from "@rein/runtime/testing";
import { startController } from "../src/control/controller.ts";
import { submitGoal } from "../src/intake/submit-goal.ts";
import { closedAfterEach } from "@rein/runtime/testing";

/** Resolves with the control job once the controller is done with it, completed or failed for good. */
function settled(worker: Worker, jobId: string): Promise<{ job: Job; outcome: "completed" | "failed" }> {
  return new Promise((resolve) => {
    worker.on("completed", (job) => {
      if (job.id === jobId) resolve({ job, outcome: "completed" });
    });
    worker.on("failed", (job) => {
      if (job?.id === jobId && job.attemptsMade >= (job.opts.attempts ?? 1)) resolve({ job, outcome: "failed" });
    });
  });
}

describe("a control event for a run that is no longer active", { timeout: 60_000 }, () => {
  const opened = closedAfterEach();
  const controllerOn = (runtime: TestRuntime) =>
    opened.track(startController({ runtime, packetPrivateKey: generatePacketKeys().privateKey }), (worker) => worker.close());

  it("is dropped at intake when its run is gone (pruned), without retries or an event.failed for a run nobody has", async () => {
    const runtime = opened.track(await createTestRuntime({ queues: { attempts: 2 } }), (runtime) => runtime.cleanup());
    const controller = controllerOn(runtime);
    const done = settled(controller, "control-late-1");
    await runtime.queues.sendControl({ type: "run.resume", eventId: "late-1", runId: "run_pruned", instruction: "go on" });
    const { outcome, job } = await done;
    expect(outcome).toBe("completed");
    expect(job.attemptsMade).toBe(1);
    expect(await runtime.queues.control.getJobCounts("wait", "delayed", "active", "failed")).toEqual({
      wait: 0,
      delayed: 0,
      active: 0,
      failed: 0,
    });
    expect(await runtime.redis.exists(runtime.keys.trace("run_pruned"))).toBe(0);
  });

  it("is traced as ignored and acted on no further when its run has ended", async () => {
    const runtime = opened.track(await createTestRuntime(), (runtime) => runtime.cleanup());
    const { runId } = await submitGoal(runtime, { text: "Find out the status" }, { knownTools: [] });
    await runtime.queues.sendControl({ type: "run.cancel", eventId: `cancel-${runId}`, runId, reason: "not needed" });
    const controller = controllerOn(runtime);
    const resumed = settled(controller, `control-late-${runId}`);
    const cancelled = await waitUntil(async () => (await runtime.runs.get(runId))?.status === "cancelled");
    expect(cancelled).toBe(true);
    const before = await runtime.runs.require(runId);
    const planJobsBefore = await runtime.queues.plan.getJobCounts("wait", "delayed", "active");
    await runtime.queues.sendControl({ type: "run.resume", eventId: `late-${runId}`, runId, instruction: "go on after all" });
    expect((await resumed).outcome).toBe("completed");
    const after = await runtime.runs.require(runId);
    expect(after.status).toBe("cancelled");
    expect(after.version).toBe(before.version);
    const ignored = (await runtime.trace.read(runId)).filter((event) => event.kind === "event.ignored");
    expect(ignored.map((event) => event.payload)).toContainEqual({
      event: "run.resume",
      eventId: `late-${runId}`,
      reason: "run is already cancelled",
    });
    expect(await runtime.queues.plan.getJobCounts("wait", "delayed", "active")).toEqual(planJobsBefore);
  });
});

async function waitUntil(holds: () => Promise<boolean>, timeoutMs = 30_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await holds()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}
