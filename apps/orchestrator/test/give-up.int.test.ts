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
