import { afterAll, describe, expect, it } from "vitest";
import { type ModelProvider, ReinError } from "@rein/core";
import { type Harness, startHarness } from "./support/harness.ts";

describe("a step whose job fails for good", () => {
  let harness: Harness | undefined;
  afterAll(async () => {
    await harness?.close();
  });

  it("ends the run failed with the reason, instead of leaving it waiting forever", async () => {
    let calls = 0;
    const overloaded: ModelProvider = {
      name: "flaky",
      kind: "scripted",
      model: "flaky-1",
      complete: async () => {
        calls += 1;
        throw new ReinError("model_error", "flaky answered 529 overloaded after 4 retries", { retryable: true });
      },
    };
    harness = await startHarness(
      {
        planner: [
          {
            match: "Completed steps: none",
            turns: [{ output: { current_step: { title: "Read the readme", objective: "Read README.md with read_file", tools: ["read_file"] }, done: false } }],
          },
        ],
      },
      [],
      { worker: overloaded },
    );
    const runId = await harness.submit({ text: "Summarize the readme", tools: [{ name: "read_file" }] });
    const state = await harness.waitFor(runId);
    expect(state.status).toBe("failed");
    expect(state.stopReason).toMatch(/failed for good after 5 attempt\(s\): .*529 overloaded/);
    expect(calls).toBe(5);
  });
});

describe("a control event the controller cannot apply", () => {
  let harness: Harness | undefined;
  afterAll(async () => {
    await harness?.close();
  });

  it("ends the run failed with the reason, like the other queues, instead of leaving it until the deadline", async () => {
    harness = await startHarness({ planner: [] });
    const [control] = harness.roleRuntimes;
    if (!control) throw new Error("expected a control runtime");
    // The plan queue refuses every job for good, so goal.submitted's effect can never be performed.
    control.queues.sendPlan = async () => {
      throw new ReinError("contract_invalid", "the plan queue rejected the job");
    };
    const runId = await harness.submit({ text: "Summarize the readme", tools: [{ name: "read_file" }] });
    const state = await harness.waitFor(runId);
    expect(state.status).toBe("failed");
    expect(state.stopReason).toMatch(/could not apply goal\.submitted event .*: failed for good after 1 attempt\(s\): .*the plan queue rejected the job/);
    const kinds = (await harness.runtime.trace.read(runId)).map((event) => event.kind);
    expect(kinds).toContain("run.failed");
  });
});
