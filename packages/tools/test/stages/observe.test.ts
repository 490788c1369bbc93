import { describe, expect, it } from "vitest";
import { observe } from "../../src/executor/stages/observe.ts";
import { callInProgress, noteTool } from "../../src/testing/stage-harness.ts";

const stored = {
  schemaVersion: 1 as const,
  fingerprint: "sha256:f" as const,
  rendered: "noted",
  rawOutputHash: "sha256:h" as const,
  empty: false,
  observedAt: "2026-11-30T10:00:00.000Z",
};
const presented = { text: "fenced noted", flags: [], nonce: "n" };

describe("observe stage", () => {
  const { tool } = noteTool();

  it("observes a replayed result with the time it was first observed", async () => {
    const execution = { kind: "result" as const, result: stored, source: "replayed" as const, attempts: 1, durationMs: 0 };
    const { state } = callInProgress({ state: { tool, execution, prepared: { whole: "noted", shown: "noted", flags: [] }, presented } });
    expect(await observe(state)).toMatchObject({
      status: "ok",
      trust: "tool",
      content: "fenced noted",
      replayed: true,
      cacheHit: false,
      observedAt: stored.observedAt,
    });
  });

  it("says an empty result was empty, not that nothing exists", async () => {
    const execution = {
      kind: "result" as const,
      result: { ...stored, empty: true },
      source: "executed" as const,
      attempts: 1,
      durationMs: 0,
    };
    const { state } = callInProgress({ state: { tool, execution } });
    expect(await observe(state)).toMatchObject({ status: "ok", empty: true, content: "note returned nothing: its result was empty." });
  });

  it("observes a failure with what to do next", async () => {
    const execution = {
      kind: "failed" as const,
      status: "timeout" as const,
      error: "slow",
      failure: "different_action" as const,
      replayed: false,
      attempts: 1,
      durationMs: 9,
    };
    const { state } = callInProgress({ state: { tool, execution, prepared: { whole: "slow", shown: "slow", flags: [] }, presented } });
    const ending = await observe(state);
    expect(ending).toMatchObject({ status: "timeout", failure: "different_action", message: "slow" });
    expect(ending?.content).toMatch(/^note failed\.\nfenced noted\nRetrying the same call will fail the same way/);
  });

  it("refuses a fresh output that skipped record-outcome", async () => {
    const { state } = callInProgress({ state: { tool, execution: { kind: "output", output: "x", attempts: 1, durationMs: 0 } } });
    await expect(observe(state)).rejects.toThrow(/stage order/);
  });
});
