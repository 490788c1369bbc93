import { describe, expect, it } from "vitest";
import { validateInput } from "../../src/executor/stages/validate-input.ts";
import { callInProgress, noteTool } from "../../src/testing/stage-harness.ts";

describe("validate-input stage", () => {
  const { tool } = noteTool();

  it("keeps the arguments as the tool's schema parsed them", async () => {
    const { state } = callInProgress({ state: { tool } });
    expect(await validateInput(state)).toBeUndefined();
    expect(state.input).toEqual({ args: { text: "hi" } });
  });

  it("names the bad field and what was expected", async () => {
    const { state, trace } = callInProgress({ call: { input: { text: 7 } }, state: { tool } });
    const ending = await validateInput(state);
    expect(ending).toMatchObject({ status: "invalid_input", failure: "different_action" });
    expect(ending?.content).toContain('field "text": expected string, received number 7');
    expect(trace.kinds()).toEqual(["tool.input_invalid"]);
  });

  it("refuses to run out of order, before the tool is resolved", async () => {
    const { state } = callInProgress();
    await expect(validateInput(state)).rejects.toThrow(/stage order: "tool"/);
  });
});
