import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunState } from "@rein/contracts/run";
import type { ModelScriptInput } from "@rein/models";
import { type Harness, startHarness } from "./support/harness.ts";
import { probeGoal, probeScript, probeTool } from "./support/probe-run.ts";

/** The probe run, its worker's model slow enough that only the run's wall-time budget can end it. */
const slowWorker: ModelScriptInput = {
  ...probeScript,
  worker: [{ match: "Probe the status", turns: [{ text: "still thinking", delayMs: 120_000 }] }],
};

describe("a run past its wall-time budget", { timeout: 120_000 }, () => {
  let harness: Harness;
  let state: RunState;

  beforeAll(async () => {
    harness = await startHarness(slowWorker, [probeTool()]);
    const runId = await harness.submit({ ...probeGoal, budget: { maxWallMs: 2_000 } });
    state = await harness.waitFor(runId, (current) => ["done", "failed", "escalated", "cancelled"].includes(current.status));
  }, 120_000);
  afterAll(async () => {
    await harness?.close();
  });

  it("fails when its deadline fires, saying the wall time was spent", () => {
    expect(state.status).toBe("failed");
    expect(state.stopReason).toMatch(/wall-time budget spent: \d+ ms of 2000 ms/);
  });

  it("leaves no deadline behind once the run is retired", async () => {
    const { runtime } = harness;
    await expect.poll(() => runtime.redis.zscore(runtime.keys.runDeadlines(), state.runId), { timeout: 10_000 }).toBeNull();
  });
});
