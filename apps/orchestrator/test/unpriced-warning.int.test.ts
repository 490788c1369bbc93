import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestRuntime, type TestRuntime } from "@rein/core/testing";
import { describeEvent } from "../src/cli/progress.ts";
import { submitGoal } from "../src/intake/submit-goal.ts";

describe("a run whose model has no known price", () => {
  let runtime: TestRuntime;

  beforeAll(async () => {
    const local = { provider: "local", model: "qwen3-coder" };
    runtime = await createTestRuntime({
      providers: { local: { kind: "openai-compatible", baseURL: "http://127.0.0.1:9/v1" }, scripted: { kind: "scripted" } },
      roles: { planner: local, worker: local, evaluator: { provider: "scripted", model: "scripted-1" }, judge: { provider: "scripted", model: "scripted-1" } },
    });
  });
  afterAll(async () => {
    await runtime.cleanup();
  });

  it("says at its start that the cost budget cannot see that model's calls", async () => {
    const { runId } = await submitGoal(runtime, { text: "Fix the bug.", budget: { maxCostUsd: 2 } }, { knownTools: [] });
    const submitted = (await runtime.trace.read(runId)).find((event) => event.kind === "run.submitted");
    expect(submitted?.payload).toMatchObject({ unpriced: ["local/qwen3-coder (planner, worker)"] });
    const line = describeEvent(submitted as NonNullable<typeof submitted>);
    expect(line).toContain("price unknown for local/qwen3-coder (planner, worker)");
    expect(line).toContain("$2 cost budget");
  });

  it("shows each unpriced call as price unknown", () => {
    const line = describeEvent({
      schemaVersion: 1,
      seq: 9,
      ts: new Date().toISOString(),
      runId: "run_1",
      stepId: "s1",
      parentStepId: null,
      kind: "model.responded",
      payload: { role: "worker", provider: "local", model: "qwen3-coder", price: "unknown" },
    });
    expect(line).toContain("price unknown");
  });
});
