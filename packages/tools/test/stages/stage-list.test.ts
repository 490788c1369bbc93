import { describe, expect, it } from "vitest";
import { createLogger, SecretBindings } from "@rein/guard";
import type { CallStage } from "../../src/executor/call-in-progress.ts";
import { CALL_STAGES } from "../../src/executor/call-stages.ts";
import { executeCall } from "../../src/executor/execute-call.ts";
import { ToolRegistry } from "../../src/tool-registry.ts";
import { MemoryArtifacts, MemoryTrace } from "../../src/testing/executor-harness.ts";
import { callInProgress, noteTool } from "../../src/testing/stage-harness.ts";

describe("the stage list", () => {
  it("runs a stage added to the list in its place, and traces the ending it returns like any other", async () => {
    const { tool, runs } = noteTool({ effect: "read" });
    const trace = new MemoryTrace();
    const deps = {
      registry: new ToolRegistry([tool]),
      trace,
      artifacts: new MemoryArtifacts(),
      config: { policy: [], observations: { maxBytes: 1000, maxLines: 20 } },
      secrets: SecretBindings.none(),
      logger: createLogger({ level: "silent" }),
      now: Date.now,
    };
    const quiet: CallStage = async (state) =>
      state.tool?.name === "note" ? { status: "refused", trust: "runtime", content: "not today", message: "quiet hours" } : undefined;
    const stages = [...CALL_STAGES.slice(0, 2), quiet, ...CALL_STAGES.slice(2)];
    const { context } = callInProgress({ tools: [tool] }).state;
    const outcome = await executeCall(deps, { type: "tool_call", id: "c1", name: "note", input: { text: "hi" } }, 0, context, stages);
    expect(outcome.observation).toMatchObject({ status: "refused", content: "not today" });
    expect(runs).toEqual([]);
    expect(trace.kinds()).toEqual(["tool.called", "tool.result", "observation.made"]);
  });

  it("fails loudly when no stage produced an observation", async () => {
    const { state } = callInProgress();
    await expect(executeCall(state.deps, state.call, 0, state.context, [])).rejects.toThrow(/no stage ended the call/);
  });
});
