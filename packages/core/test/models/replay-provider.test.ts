import { describe, expect, it } from "vitest";
import { ReinError } from "../../src/errors.ts";
import type { ModelRequest, ModelResponse } from "../../src/models/model-provider.ts";
import { ReplayProvider } from "../../src/models/replay/replay-provider.ts";

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
