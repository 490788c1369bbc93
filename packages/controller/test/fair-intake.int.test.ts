import { Worker } from "bullmq";
import { describe, expect, it } from "vitest";
import type { PlanJob } from "@rein/contracts/messages";
import { generatePacketKeys } from "@rein/signing";
import { createTestRuntime } from "@rein/runtime/testing";
import { startController } from "../src/control/controller.ts";
import { submitGoal } from "../src/intake/submit-goal.ts";
import { closedAfterEach } from "@rein/runtime/testing";

const BURST = 1_000;

// A thousand submissions through a real controller on a loaded machine: sized generously, not a timing assertion.
describe("a burst of submissions", { timeout: 300_000 }, () => {
  const opened = closedAfterEach();

  it("does not hold up the control events of a run already in flight: they are taken before the queued submissions", async () => {
    const runtime = opened.track(await createTestRuntime(), (runtime) => runtime.cleanup());
    const { runId: inFlight } = await submitGoal(runtime, { text: "A run already going" }, { knownTools: [] });
    for (let index = 0; index < BURST; index += 1) await submitGoal(runtime, { text: `Burst goal ${index}` }, { knownTools: [] });
    // The run in flight gets an event after the burst is queued: a person cancels it.
    await runtime.queues.sendControl({ type: "run.cancel", eventId: `cancel-${inFlight}`, runId: inFlight, reason: "changed my mind" });
    const order: string[] = [];
    const controller = opened.track(startController({ runtime, packetPrivateKey: generatePacketKeys().privateKey }), (worker) =>
      worker.close(),
    );
    const cancelled = new Promise<number>((resolve) => {
      controller.on("completed", (job) => {
        order.push(String(job.id));
        if (job.id === `control-cancel-${inFlight}`) resolve(order.length);
      });
    });
    const position = await cancelled;
    // Taken ahead of the burst (up to a controller's concurrency of jobs already started), not after a thousand submissions.
    expect(position).toBeLessThanOrEqual(20);
    expect((await runtime.runs.require(inFlight)).status).toBe("cancelled");
  });
});

describe("a burst of new runs' first plans", { timeout: 120_000 }, () => {
  const opened = closedAfterEach();

  it("does not hold up the replan of a run in flight: it is taken before the queued first plans", async () => {
    const runtime = opened.track(await createTestRuntime(), (runtime) => runtime.cleanup());
    const plan = (runId: string, planNo: number): PlanJob => ({
      runId,
      planNo,
      context: { goal: "Find out the status", grantedTools: [], completedSteps: [], evidence: [], lessons: [], knownEvidenceIds: [] },
    });
    for (let index = 0; index < BURST; index += 1) await runtime.queues.sendPlan(plan(`run_new${index}`, 1));
    await runtime.queues.sendPlan(plan("run_inflight", 2));
    const order: string[] = [];
    // Takes plan jobs in the order the planner role would, and records it.
    opened.track(
      new Worker("plan", async (job) => void order.push(String(job.id)), {
        connection: runtime.connection,
        prefix: runtime.keys.queuePrefix(),
        concurrency: 1,
      }),
      (planner) => planner.close(),
    );
    await waitUntil(async () => order.includes("plan-run_inflight-2"));
    expect(order.indexOf("plan-run_inflight-2")).toBeLessThanOrEqual(5);
  });
});

async function waitUntil(holds: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await holds())) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
