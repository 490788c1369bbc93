import { describe, expect, it } from "vitest";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ReinError } from "@rein/contracts";
import { TraceEvent } from "@rein/contracts/run";
import type { ModelRequest, ModelResponse } from "../src/model-provider.ts";
import { ReplayProvider } from "../src/replay/replay-provider.ts";

const responseSaying = (text: string): ModelResponse => ({
  content: [{ type: "text", text }],
  stopReason: "end_turn",
  usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 },
  provider: "anthropic",
  model: "claude-x",
  retries: 0,
});
const ask = (role: ModelRequest["role"]): ModelRequest => ({ role, system: "", messages: [] });

describe("ReplayProvider", () => {
  it("plays each role's recordings in order, independently", async () => {
    const replay = new ReplayProvider({ planner: [responseSaying("p1"), responseSaying("p2")], worker: [responseSaying("w1")] });
    expect((await replay.complete(ask("planner"))).content).toEqual([{ type: "text", text: "p1" }]);
    expect((await replay.complete(ask("worker"))).content).toEqual([{ type: "text", text: "w1" }]);
    expect((await replay.complete(ask("planner"))).content).toEqual([{ type: "text", text: "p2" }]);
  });

  it("plays a plain list in arrival order and throws script_exhausted when out", async () => {
    const replay = new ReplayProvider([responseSaying("only")]);
    await replay.complete(ask("judge"));
    const error = await replay.complete(ask("worker")).catch((caught: unknown) => caught);
    expect(ReinError.hasCode(error, "script_exhausted")).toBe(true);
    expect((error as ReinError).message).toContain("1 recorded response");
  });

  it("returns copies, so a caller changing a response does not change the recording", async () => {
    const recorded = responseSaying("keep");
    const replay = new ReplayProvider({ worker: [recorded] });
    const response = await replay.complete(ask("worker"));
    response.content.push({ type: "text", text: "changed" });
    expect(recorded.content).toHaveLength(1);
  });
});

describe("ReplayProvider from a file", () => {
  const fileHolding = (content: string): string => {
    const path = join(mkdtempSync(join(tmpdir(), "rein-replay-")), "recordings.json");
    writeFileSync(path, content);
    return path;
  };

  it("serves the responses a file holds, per role", async () => {
    const replay = ReplayProvider.fromFile(fileHolding(JSON.stringify({ worker: [responseSaying("from file")] })));
    expect((await replay.complete(ask("worker"))).content).toEqual([{ type: "text", text: "from file" }]);
  });

  it("refuses a file whose responses are not model responses, naming what was expected", () => {
    const path = fileHolding(JSON.stringify({ worker: [{ content: "not blocks" }] }));
    const error = (() => {
      try {
        ReplayProvider.fromFile(path);
      } catch (caught) {
        return caught;
      }
    })();
    expect(ReinError.hasCode(error, "config_invalid")).toBe(true);
    expect((error as ReinError).message).toContain("expected a list of model responses");
  });
});

describe("ReplayProvider from a trace", () => {
  const responded = (seq: number, stepId: string, text: string): TraceEvent =>
    TraceEvent.parse({
      schemaVersion: 1,
      seq,
      ts: new Date(0).toISOString(),
      runId: "run_1",
      stepId,
      parentStepId: null,
      kind: "model.responded",
      payload: { role: "worker", provider: "anthropic", model: "claude-x", stopReason: "end_turn", content: [{ type: "text", text }] },
    });

  it("serves each step its own recorded responses, whatever order the steps ask in", async () => {
    const replay = ReplayProvider.fromTrace([responded(1, "s1", "one"), responded(2, "s2", "two")]);
    const inStep = (stepId: string): ModelRequest => ({ ...ask("worker"), metadata: { stepId } });
    expect((await replay.complete(inStep("s2"))).content).toEqual([{ type: "text", text: "two" }]);
    expect(replay.unused()).toBe(1);
    expect((await replay.complete(inStep("s1"))).content).toEqual([{ type: "text", text: "one" }]);
    const error = await replay.complete(inStep("s1")).catch((caught: unknown) => caught);
    expect(ReinError.hasCode(error, "script_exhausted")).toBe(true);
    expect((error as ReinError).message).toContain("diverged from the recording");
  });

  it("passes each response through the translation before serving it", async () => {
    const replay = ReplayProvider.fromTrace([responded(1, "s1", "obs_old")], {
      translate: async (json) => json.replace("obs_old", "obs_new"),
    });
    const response = await replay.complete({ ...ask("worker"), metadata: { stepId: "s1" } });
    expect(response.content).toEqual([{ type: "text", text: "obs_new" }]);
  });
});
