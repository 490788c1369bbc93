import { existsSync } from "node:fs";
import { join } from "node:path";
import { type AnyTool, defineTool } from "@rein/tools";
import { findTraceEvent } from "@rein/trace";
import { describe, expect, it } from "vitest";
import { EXAMPLES_DIR } from "../../src/examples/load-example.ts";
import { buildRegistry } from "@rein/controller";
import { renderReplayReport } from "../../src/replay/replay-report.ts";
import { replayRun } from "../../src/replay/replay-run.ts";
import { openIsolatedRuntime } from "../../src/replay/isolated-runtime.ts";
import { exampleRecordedOnce, type Recorded } from "../trace/record-example.ts";

async function replay(recorded: Recorded, options: Parameters<typeof replayRun>[2]) {
  const scratch = await openIsolatedRuntime(recorded.runtime.config, "replay");
  try {
    return await replayRun(scratch, recorded.bundle, { seedDir: recorded.example.seedDir, ...options });
  } finally {
    await scratch.discard();
  }
}

/** read_file, but the second line of what it returns is changed: "one line of a tool's output". */
function readFileChangingLine2(recorded: Recorded): AnyTool {
  const real = buildRegistry(recorded.runtime.config, []).get("read_file") as AnyTool;
  return defineTool({
    ...real,
    render: (output: unknown) => {
      const lines = real.render(output).split("\n");
      if (lines.length > 1) lines[1] = `${lines[1]} // changed`;
      return lines.join("\n");
    },
  });
}

const EXAMPLES = ["bugfix", "sre-triage", "sre-triage-plugin"].filter((name) => existsSync(join(EXAMPLES_DIR, name, "goal.json")));

describe.each(EXAMPLES)("replaying examples/%s", (name) => {
  const recorded = exampleRecordedOnce(name);

  it("with real tools in a fresh workspace reports identical, each call that needs approval decided afresh by the person replaying", async () => {
    const report = await replay(recorded, {
      mode: "real",
      tools: recorded.example.tools,
      decide: () => ({ decision: "approved", approver: "test:replayer" }),
    });
    expect(report.comparison.divergence).toBeUndefined();
    expect(report.identical).toBe(true);
    expect(report.comparison.compared).toBe(recorded.bundle.events.filter((event) => event.kind === "tool.result").length);
    expect(renderReplayReport(report)).toMatch(/^identical: /);
  });

  it("by default answers every call from the recording and reports identical", async () => {
    const report = await replay(recorded, { tools: recorded.example.tools });
    expect(report.identical).toBe(true);
    expect(report.comparison.maskedMatches).toEqual([]);
    expect(report.stubbedCalls).toHaveLength(recorded.bundle.events.filter((event) => event.kind === "tool.executed").length);
  });
});

describe("replaying examples/bugfix against a changed tool", () => {
  const recorded = exampleRecordedOnce("bugfix");

  it("reports the first divergence at the right step and call, with a line diff", async () => {
    const report = await replay(recorded, { mode: "real", tools: [...recorded.example.tools, readFileChangingLine2(recorded)] });
    expect(report.identical).toBe(false);
    const firstRead = findTraceEvent(recorded.bundle.events, "tool.result", (event) => event.payload.name === "read_file");
    expect(report.comparison.divergence).toMatchObject({
      stepId: "s1",
      callIndex: firstRead?.payload.index,
      tool: "read_file",
      expected: { status: "ok", hash: firstRead?.payload.rawOutputHash },
      actual: { status: "ok" },
      reason: "the tool returned different output",
    });
    const text = renderReplayReport(report);
    expect(text).toContain(`diverged at step s1, call #${firstRead?.payload.index} (read_file)`);
    expect(text).toMatch(/\n {2}- .*\n {2}\+ .* \/\/ changed/);
  });
});
