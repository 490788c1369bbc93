import { describe, expect, it } from "vitest";
import { resolveSurface } from "../../src/executor/stages/resolve-surface.ts";
import { callInProgress, noteTool } from "../../src/testing/stage-harness.ts";

describe("resolve-surface stage", () => {
  it("finds the granted tool", async () => {
    const { state } = callInProgress();
    expect(await resolveSurface(state)).toBeUndefined();
    expect(state.tool?.name).toBe("note");
    expect(state.grant).toEqual({ name: "note", scope: {} });
  });

  it("refuses an installed tool the step was not granted, listing what it may use", async () => {
    const other = noteTool({ name: "other" }).tool;
    const { state } = callInProgress({
      tools: [noteTool().tool, other],
      call: { name: "other" },
      context: { surface: [{ name: "note", scope: {} }] },
    });
    const ending = await resolveSurface(state);
    expect(ending).toMatchObject({ status: "refused", message: "not_on_surface" });
    expect(ending?.content).toContain("Available tools: note.");
    expect(state.tool).toBeUndefined();
  });

  it("refuses a granted name no installed tool has", async () => {
    const { state } = callInProgress({ call: { name: "ghost" }, context: { surface: [{ name: "ghost", scope: {} }] } });
    expect(await resolveSurface(state)).toMatchObject({ status: "refused", content: expect.stringContaining("(none)") });
  });
});
