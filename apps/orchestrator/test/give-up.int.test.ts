import { afterAll, describe, expect, it } from "vitest";
import { ReinError } from "@rein/contracts";
import { isTerminal } from "@rein/contracts/run";
import type { ModelProvider } from "@rein/models";
import { expectEveryTokenCounted } from "./support/expect-usage.ts";
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
            turns: [
              {
                output: {
                  current_step: { title: "Read the readme", objective: "Read README.md with read_file", tools: ["read_file"] },
                  done: false,
                },
              },
            ],
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
    expect(state.stopReason).toMatch(
      /could not apply goal\.submitted event .*: failed for good after 1 attempt\(s\): .*the plan queue rejected the job/,
    );
    const kinds = (await harness.runtime.trace.read(runId)).map((event) => event.kind);
    expect(kinds).toContain("run.failed");
  });
});

describe("a judge that never gives a valid score", () => {
  let harness: Harness | undefined;
  afterAll(async () => {
    await harness?.close();
  });

  it("escalates the step with the reason and counts what the judge's tries spent", async () => {
    harness = await startHarness({
      planner: [
        {
          match: "Completed steps: none",
          turns: [
            {
              output: {
                current_step: {
                  title: "Read the readme",
                  objective: "Read README.md with read_file",
                  tools: ["read_file"],
                  acceptance_criteria: [{ kind: "judge", description: "the summary is faithful to the readme" }],
                },
                done: false,
              },
            },
          ],
        },
      ],
      worker: [{ match: "Task: Read the readme", turns: [{ text: "The readme is short." }] }],
      judge: [{ repeatLast: true, turns: [{ output: { verdict: "maybe" } }] }],
    });
    const runId = await harness.submit({ text: "Summarize the readme", tools: [{ name: "read_file" }] });
    const state = await harness.waitFor(runId, (candidate) => candidate.status === "escalated" || isTerminal(candidate.status));
    expect(state.status).toBe("escalated");
    expect(state.stopReason).toMatch(/the evaluator failed.*the judge model gave invalid output 3 times/);
    const trace = await harness.runtime.trace.read(runId);
    expect(trace.filter((event) => event.kind === "usage.counted" && event.payload.role === "judge")).toHaveLength(1);
    expectEveryTokenCounted(state, trace);
  });
});
