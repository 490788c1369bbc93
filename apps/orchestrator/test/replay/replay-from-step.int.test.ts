import { describe, expect, it } from "vitest";
import { replayRun } from "../../src/replay/replay-run.ts";
import { openIsolatedRuntime } from "../../src/replay/isolated-runtime.ts";
import { exampleRecordedOnce } from "../trace/record-example.ts";

describe("rein replay --from-step", () => {
  const recorded = exampleRecordedOnce("sre-triage");

  async function replayFrom(fromStep: string) {
    const scratch = await openIsolatedRuntime(recorded.runtime.config, "replay-from");
    try {
      // Tools really run, so the restart the recording approved is approved again by the person replaying.
      const decide = () => ({ decision: "approved" as const, approver: "test:replayer" });
      return await replayRun(scratch, recorded.bundle, {
        mode: "real",
        tools: recorded.example.tools,
        seedDir: recorded.example.seedDir,
        fromStep,
        decide,
      });
    } finally {
      await scratch.discard();
    }
  }

  it("compares only the tool results from that step on", async () => {
    const results = (stepId: string) =>
      recorded.bundle.events.filter((event) => event.kind === "tool.result" && event.stepId === stepId).length;
    expect(results("s1")).toBeGreaterThan(0);
    const report = await replayFrom("s2");
    expect(report.comparison.divergence).toBeUndefined();
    expect(report.comparison.compared).toBe(results("s2"));
    expect(report.identical).toBe(true);
  });

  it("says which step does not exist", async () => {
    await expect(replayFrom("s7")).rejects.toThrow(/has no step s7/);
  });
});
