import { describe, expect, it } from "vitest";
import { recordOutcome } from "../../src/executor/stages/record-outcome.ts";
import { callInProgress, FINGERPRINT, noteTool } from "../../src/testing/stage-harness.ts";

describe("record-outcome stage", () => {
  it("renders a fresh output into the result the later stages read, and traces it", async () => {
    const { tool } = noteTool({ render: (output: unknown) => `rendered: ${String(output)}` });
    const { state, trace } = callInProgress({
      state: { tool, execution: { kind: "output", output: "noted hi", attempts: 2, durationMs: 5 } },
    });
    expect(await recordOutcome(state)).toBeUndefined();
    expect(state.execution).toMatchObject({
      kind: "result",
      source: "executed",
      attempts: 2,
      result: { rendered: "rendered: noted hi", empty: false, fingerprint: FINGERPRINT },
    });
    expect(trace.ofKind("tool.executed")[0]?.payload).toMatchObject({ status: "ok", output: "rendered: noted hi" });
  });

  it("marks an empty output as empty", async () => {
    const { tool } = noteTool();
    const { state } = callInProgress({ state: { tool, execution: { kind: "output", output: [], attempts: 1, durationMs: 1 } } });
    await recordOutcome(state);
    expect(state.execution).toMatchObject({ kind: "result", result: { empty: true } });
  });
});
