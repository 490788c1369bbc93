import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "../../src/define-tool.ts";
import { runCall } from "../../src/executor/stages/run-call.ts";
import { callInProgress, noteTool } from "../../src/testing/stage-harness.ts";

describe("run-call stage", () => {
  const input = { args: { text: "hi" } };

  it("runs the tool and keeps its output for the next stages", async () => {
    const { tool, runs } = noteTool();
    const { state } = callInProgress({ state: { tool, input } });
    expect(await runCall(state)).toBeUndefined();
    expect(runs).toEqual(["hi"]);
    expect(state.execution).toMatchObject({ kind: "output", output: "noted hi", attempts: 1 });
  });

  it("replays a recorded result instead of running the tool again", async () => {
    const { tool, runs } = noteTool();
    const recorded = {
      schemaVersion: 1 as const,
      fingerprint: "sha256:fingerprint" as const,
      rendered: "noted hi",
      rawOutputHash: "sha256:x" as const,
      empty: false,
      observedAt: "2026-11-30T00:00:00.000Z",
    };
    const { state, trace } = callInProgress({ state: { tool, input, recorded } });
    await runCall(state);
    expect(runs).toEqual([]);
    expect(state.execution).toMatchObject({ kind: "result", source: "replayed", result: recorded });
    expect(trace.kinds()).toEqual(["tool.replayed"]);
  });

  it("keeps a tool's error as text to present, traced redacted and cut", async () => {
    const failing = defineTool({
      name: "note",
      description: "fails",
      effect: "write",
      input: z.object({ text: z.string() }),
      run: async (): Promise<string> => {
        throw new Error(`upstream said: ${"x".repeat(2000)}`);
      },
    });
    const { state, trace } = callInProgress({ tools: [failing], state: { tool: failing, input } });
    await runCall(state);
    expect(state.execution).toMatchObject({ kind: "failed", status: "error" });
    const traced = trace.ofKind("tool.executed")[0]?.payload as { status: string; error: string };
    expect(traced.status).toBe("error");
    expect(traced.error.length).toBeLessThanOrEqual(500);
  });
});
