import { type AnyTool, defineTool } from "@rein/tools";
import { describe, expect, it } from "vitest";
import { buildRegistry } from "@rein/controller";
import { renderReplayReport } from "../../src/replay/replay-report.ts";
import { replayStep } from "../../src/replay/replay-step.ts";
import { openIsolatedRuntime } from "../../src/replay/isolated-runtime.ts";
import { exampleRecordedOnce } from "../trace/record-example.ts";

describe("rein replay --step: one step in isolation from its recorded packet", () => {
  const recorded = exampleRecordedOnce("bugfix");

  async function replay(tools: readonly AnyTool[] = recorded.example.tools) {
    const scratch = await openIsolatedRuntime(recorded.runtime.config, "replay-step");
    try {
      return await replayStep(scratch, recorded.bundle, "s1", { mode: "real", tools, seedDir: recorded.example.seedDir });
    } finally {
      await scratch.discard();
    }
  }

  it("re-runs the bugfix step with real tools and reports identical", async () => {
    const report = await replay();
    expect(report.comparison.divergence).toBeUndefined();
    expect(report.status).toEqual({ recorded: "completed", replay: "completed" });
    expect(report.comparison.compared).toBe(7);
    expect(report.identical).toBe(true);
  });

  it("finds the first divergence at the right call when a tool answers differently", async () => {
    const real = buildRegistry(recorded.runtime.config, []).get("list_files") as AnyTool;
    const changed = defineTool({ ...real, render: (output: unknown) => `${real.render(output)}\nextra.txt` });
    const report = await replay([changed]);
    expect(report.identical).toBe(false);
    expect(report.comparison.divergence).toMatchObject({ stepId: "s1", callIndex: 0, tool: "list_files" });
    expect(renderReplayReport(report)).toMatch(/diverged at step s1, call #0 \(list_files\)/);
  });

  it("says which step has no recorded packet", async () => {
    const scratch = await openIsolatedRuntime(recorded.runtime.config, "replay-step");
    try {
      await expect(replayStep(scratch, recorded.bundle, "s9", { mode: "real" })).rejects.toThrow(/no recorded packet for step s9/);
    } finally {
      await scratch.discard();
    }
  });
});
