import { describe, expect, it } from "vitest";
import { PolicyRule } from "@rein/contracts";
import { decidePolicy } from "../../src/executor/stages/decide-policy.ts";
import { callInProgress, noteTool } from "../../src/testing/stage-harness.ts";

describe("decide-policy stage", () => {
  const prior = (tool = noteTool().tool) => ({ tool, input: { args: { text: "hi" } }, scope: {} });

  it("records an allow and passes the call on", async () => {
    const { state, trace } = callInProgress({ state: prior(noteTool({ effect: "read" }).tool) });
    expect(await decidePolicy(state)).toBeUndefined();
    expect(state.decision?.decision).toBe("allow");
    expect(trace.ofKind("permission.decided")[0]?.payload).toMatchObject({ decision: "allow", effect: "read" });
  });

  it("ends a denied call with the rule that denied it", async () => {
    const deny = PolicyRule.parse({ id: "no-notes", tool: "note", decision: "deny" });
    const { state } = callInProgress({
      deps: { config: { policy: [deny], observations: { maxBytes: 1000, maxLines: 20 } } },
      state: prior(),
    });
    const ending = await decidePolicy(state);
    expect(ending).toMatchObject({ status: "denied", message: "denied by no-notes" });
  });

  it("asks when the tool always needs approval, whatever the rules allow", async () => {
    const { state } = callInProgress({ state: prior(noteTool({ effect: "read", approval: "always" }).tool) });
    expect(await decidePolicy(state)).toBeUndefined();
    expect(state.decision?.decision).toBe("ask");
  });
});
