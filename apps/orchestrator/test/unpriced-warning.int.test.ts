import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findTraceEvent } from "@rein/trace";
import { createTestRuntime, type TestRuntime, traceEventOf } from "@rein/runtime/testing";
import { describeEvent } from "../src/cli/progress.ts";
import { submitGoal } from "@rein/controller";

describe("a run whose model has no known price", () => {
  let runtime: TestRuntime;

  beforeAll(async () => {
    const local = { provider: "local", model: "qwen3-coder" };
    runtime = await createTestRuntime({
      providers: { local: { kind: "openai-compatible", baseURL: "http://127.0.0.1:9/v1" }, scripted: { kind: "scripted" } },
      roles: {
        planner: local,
        worker: local,
        evaluator: { provider: "scripted", model: "scripted-1" },
        judge: { provider: "scripted", model: "scripted-1" },
      },
    });
  });
  afterAll(async () => {
    await runtime.cleanup();
  });

  it("says at its start that the cost budget cannot see that model's calls", async () => {
    const { runId } = await submitGoal(runtime, { text: "Fix the bug.", budget: { maxCostUsd: 2 } }, { knownTools: [] });
    const submitted = findTraceEvent(await runtime.trace.read(runId), "run.submitted");
    expect(submitted?.payload).toMatchObject({ unpriced: ["local/qwen3-coder (planner, worker)"] });
    if (!submitted) throw new Error("the run has no run.submitted event");
    const line = describeEvent(submitted);
    expect(line).toContain("price unknown for local/qwen3-coder (planner, worker)");
    expect(line).toContain("$2 cost budget");
  });

  it("shows each unpriced call as price unknown", () => {
    const line = describeEvent(
      traceEventOf(
        "model.responded",
        {
          role: "worker",
          provider: "local",
          model: "qwen3-coder",
          stopReason: "end_turn",
          retries: 0,
          requestId: null,
          price: "unknown",
          content: [],
        },
        { seq: 9, runId: "run_1", stepId: "s1" },
      ),
    );
    expect(line).toContain("price unknown");
  });
});
