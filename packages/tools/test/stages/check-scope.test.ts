import { describe, expect, it } from "vitest";
import { checkScope } from "../../src/executor/stages/check-scope.ts";
import { callInProgress, noteTool } from "../../src/testing/stage-harness.ts";
import { workspacePerTest } from "../../src/testing/workspace-per-test.ts";

const temp = workspacePerTest();

describe("check-scope stage", () => {
  const { tool } = noteTool({ scope: (args: { text: string }) => ({ paths: [args.text] }) });
  const at = (path: string, grant: string[]) =>
    callInProgress({
      workspace: temp.workspace,
      state: { tool, grant: { name: "note", scope: { paths: grant } }, input: { args: { text: path } } },
    });

  it("resolves paths relative to the workspace root", async () => {
    const { state } = at("./notes/../a.txt", ["*.txt"]);
    expect(await checkScope(state)).toBeUndefined();
    expect(state.scope).toEqual({ paths: ["a.txt"] });
  });

  it("refuses a path that leaves the workspace", async () => {
    const { state } = at("../../etc/passwd", ["**"]);
    expect(await checkScope(state)).toMatchObject({ status: "refused", message: "workspace_violation" });
    expect(state.scope).toBeUndefined();
  });

  it("refuses a path outside the step's grant, naming what is allowed", async () => {
    const { state } = at("b.md", ["*.txt"]);
    const ending = await checkScope(state);
    expect(ending).toMatchObject({ status: "refused", message: "outside_grant" });
    expect(ending?.content).toContain("paths b.md (allowed: *.txt)");
  });
});
