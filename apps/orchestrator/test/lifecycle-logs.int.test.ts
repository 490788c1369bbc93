import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunState } from "@rein/contracts/run";
import { bugfixExample, type Harness, startHarness } from "./support/harness.ts";

interface LogLine {
  level: number;
  msg: string;
  role?: string;
  runId?: string;
  stepId?: string;
  [field: string]: unknown;
}

describe("lifecycle logs at info, from every role", () => {
  let harness: Harness;
  let state: RunState;
  const lines: LogLine[] = [];

  beforeAll(async () => {
    const destination = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        for (const line of chunk.toString("utf8").split("\n").filter(Boolean)) lines.push(JSON.parse(line) as LogLine);
        callback();
      },
    });
    const { example, script } = await bugfixExample();
    harness = await startHarness(script, [], { config: example.config, log: { logDestination: destination, logLevel: "info" } });
    const runId = await harness.submit(example.goal, { workspaceDir: example.seedDir });
    state = await harness.waitFor(runId);
  }, 120_000);

  afterAll(async () => {
    await harness?.close();
  });

  const find = (msg: string) => lines.filter((line) => line.msg === msg && line.runId === state.runId);

  it("logs the run from submission to its end, each line with its run id and the role that did it", () => {
    expect(state.status).toBe("done");
    const stepId = state.steps[0]?.stepId;
    expect(find("run submitted")).toHaveLength(1);
    expect(find("plan ready")[0]).toMatchObject({ role: "planner", level: 30 });
    expect(find("step dispatched")[0]).toMatchObject({ role: "controller", stepId, attempt: 1 });
    expect(find("step started")[0]).toMatchObject({ role: "worker", stepId, attempt: 1 });
    expect(find("step finished")[0]).toMatchObject({ role: "worker", stepId, status: "completed" });
    expect(find("verdict")).toContainEqual(expect.objectContaining({ role: "evaluator", stepId, decision: "continue" }));
    expect(find("verdict")).toContainEqual(expect.objectContaining({ role: "evaluator", decision: "done" }));
    expect(find("run ended")[0]).toMatchObject({ role: "controller", status: "done" });
  });

  it("logs them in the order they happened", () => {
    const order = ["run submitted", "plan ready", "step dispatched", "step started", "step finished", "verdict", "run ended"];
    const firstAt = order.map((msg) => lines.findIndex((line) => line.msg === msg && line.runId === state.runId));
    expect(firstAt.every((index) => index >= 0)).toBe(true);
    expect([...firstAt].sort((a, b) => a - b)).toEqual(firstAt);
  });
});
