import { describe, expect, it } from "vitest";
import { refuseCutOff } from "../../src/executor/stages/refuse-cut-off.ts";
import { callInProgress } from "../../src/testing/stage-harness.ts";

describe("refuse-cut-off stage", () => {
  it("ends a call the model's output cut off, telling it to re-issue the call", async () => {
    const { state, trace } = callInProgress({ call: { incomplete: { reason: "max_tokens", rawArguments: '{"te' } } });
    const ending = await refuseCutOff(state);
    expect(ending).toMatchObject({ status: "cut_off", failure: "different_action", trust: "runtime" });
    expect(ending?.content).toMatch(/cut off.*re-issue the call/s);
    expect(trace.ofKind("tool.refused")[0]?.payload).toMatchObject({ reason: "cut_off", detail: "max_tokens" });
  });

  it("passes a complete call on", async () => {
    const { state, trace } = callInProgress();
    expect(await refuseCutOff(state)).toBeUndefined();
    expect(trace.events).toHaveLength(0);
  });
});
