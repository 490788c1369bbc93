import { describe, expect, it } from "vitest";
import { sha256 } from "@rein/contracts";
import { recordIntent, callInProgress, FINGERPRINT, intentOf, noteTool } from "@rein/tools/testing";
import { idempotencyPerTest } from "../redis-harness.ts";

const recorded = idempotencyPerTest();

const ready = { input: { args: { text: "hi" } }, scope: {} };

describe("record-intent stage", () => {
  it("records the intent of a side-effecting call before it starts", async () => {
    const { tool } = noteTool();
    const { state } = callInProgress({ deps: { idempotency: recorded.store }, state: { tool, ...ready } });
    expect(await recordIntent(state)).toBeUndefined();
    expect(await recorded.store.get(state.idempotencyKey)).toMatchObject({
      kind: "intent",
      tool: "note",
      fingerprint: FINGERPRINT,
      args: { text: "hi" },
      repeatable: false,
    });
    expect(state.intent?.token).toBeTruthy();
  });

  it("lets a read that is not idempotent (a check of the workspace of the moment) run again after a crash", async () => {
    const { tool } = noteTool({ effect: "read", idempotent: false });
    const { state } = callInProgress({ deps: { idempotency: recorded.store }, state: { tool, ...ready } });
    await recordIntent(state);
    expect(await recorded.store.get(state.idempotencyKey)).toMatchObject({ kind: "intent", repeatable: true });
    const resumed = callInProgress({ deps: { idempotency: recorded.store }, state: { tool, ...ready } }).state;
    expect(await recordIntent(resumed)).toBeUndefined();
    expect(resumed.intent).toBeDefined();
  });

  it("records nothing for an idempotent read", async () => {
    const { tool } = noteTool({ effect: "read" });
    const { state } = callInProgress({ deps: { idempotency: recorded.store }, state: { tool, ...ready } });
    await recordIntent(state);
    expect(await recorded.store.get(state.idempotencyKey)).toBeUndefined();
  });

  it("does not start a call when another run's non-idempotent intent got there first", async () => {
    const { tool } = noteTool();
    const { state } = callInProgress({ deps: { idempotency: recorded.store }, state: { tool, ...ready } });
    await recorded.store.begin(state.idempotencyKey, intentOf(sha256("concurrent")));
    expect(await recordIntent(state)).toMatchObject({ status: "outcome_unknown" });
    expect(state.intent).toBeUndefined();
  });

  it("takes over a stale intent of an idempotent call, which may simply run again", async () => {
    const { tool } = noteTool({ idempotent: true });
    const { state } = callInProgress({ deps: { idempotency: recorded.store }, state: { tool, ...ready } });
    await recorded.store.begin(state.idempotencyKey, intentOf(FINGERPRINT, true));
    expect(await recordIntent(state)).toBeUndefined();
    expect(await recorded.store.get(state.idempotencyKey)).toMatchObject({ kind: "intent", token: state.intent?.token });
  });

  it("starts nothing on a worker that is giving its step back", async () => {
    const { tool } = noteTool();
    const controller = new AbortController();
    controller.abort();
    const { state, trace } = callInProgress({
      deps: { idempotency: recorded.store },
      context: { signal: controller.signal },
      state: { tool, ...ready },
    });
    await expect(recordIntent(state)).rejects.toMatchObject({ code: "tool_failed", retryable: true, details: { interrupted: true } });
    expect(await recorded.store.get(state.idempotencyKey)).toBeUndefined();
    expect(trace.kinds()).toEqual(["tool.interrupted"]);
  });
});
