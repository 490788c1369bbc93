import { describe, expect, it } from "vitest";
import { passApproval } from "../../src/executor/stages/pass-approval.ts";
import { callInProgress, noteTool } from "../../src/testing/stage-harness.ts";

// The gate itself (ask, suspend, consume, forged and expired decisions) is tested against Redis in hostile-model.int.test.ts.
describe("pass-approval stage", () => {
  const { tool } = noteTool();
  const prior = (decision: "allow" | "ask") => ({
    tool,
    input: { args: { text: "hi" } },
    scope: {},
    decision: { decision, rule: "r1", reason: "because" },
  });

  it("lets an allowed call through without asking anyone", async () => {
    const { state, trace } = callInProgress({ state: prior("allow") });
    expect(await passApproval(state)).toBeUndefined();
    expect(trace.events).toHaveLength(0);
  });

  it("denies a call that needs approval when the deployment has no one to ask", async () => {
    const { state, trace } = callInProgress({ state: prior("ask") });
    const ending = await passApproval(state);
    expect(ending).toMatchObject({ status: "denied", message: "approval needed but no approval store" });
    expect(trace.kinds()).toEqual(["approval.unavailable"]);
  });

  it("does not ask again for a call replayed from its record: its approval was consumed when it ran", async () => {
    const recorded = {
      schemaVersion: 1 as const,
      fingerprint: "sha256:fingerprint" as const,
      rendered: "noted hi",
      rawOutputHash: "sha256:x" as const,
      empty: false,
      observedAt: "2026-12-01T00:00:00.000Z",
    };
    const { state } = callInProgress({ state: { ...prior("ask"), recorded } });
    expect(await passApproval(state)).toBeUndefined();
  });
});
