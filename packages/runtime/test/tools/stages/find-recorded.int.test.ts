import { describe, expect, it } from "vitest";
import { type Sha256, sha256 } from "@rein/contracts";
import { findRecorded, callInProgress, FINGERPRINT, intentOf, noteTool } from "@rein/tools/testing";
import { idempotencyPerTest } from "../redis-harness.ts";

const recorded = idempotencyPerTest();

const resultOf = (fingerprint: Sha256) => ({
  schemaVersion: 1 as const,
  fingerprint,
  rendered: "noted hi",
  rawOutputHash: sha256("noted hi"),
  empty: false,
  observedAt: "2026-11-30T00:00:00.000Z",
});

describe("find-recorded stage", () => {
  const { tool } = noteTool();

  it("finds the outcome an earlier run of this same call recorded under its key", async () => {
    const { state } = callInProgress({ deps: { idempotency: recorded.store }, state: { tool } });
    await recorded.store.begin(state.idempotencyKey, intentOf(FINGERPRINT));
    await recorded.store.finish(state.idempotencyKey, intentOf(FINGERPRINT), resultOf(FINGERPRINT));
    expect(await findRecorded(state)).toBeUndefined();
    expect(state.recorded).toMatchObject({ rendered: "noted hi" });
  });

  it("reads a record written before intents existed", async () => {
    const { state } = callInProgress({ deps: { idempotency: recorded.store }, state: { tool } });
    await recorded.env.redis.set(recorded.env.keys.idempotency(state.idempotencyKey), JSON.stringify(resultOf(FINGERPRINT)));
    await findRecorded(state);
    expect(state.recorded).toMatchObject({ rendered: "noted hi" });
  });

  it("ignores an outcome of a different action at the same key", async () => {
    const { state } = callInProgress({ deps: { idempotency: recorded.store }, state: { tool } });
    await recorded.store.begin(state.idempotencyKey, intentOf(sha256("other")));
    await recorded.store.finish(state.idempotencyKey, intentOf(sha256("other")), resultOf(sha256("other")));
    expect(await findRecorded(state)).toBeUndefined();
    expect(state.recorded).toBeUndefined();
  });

  it("ends a call whose non-idempotent intent has no outcome: outcome unknown, with the action shown", async () => {
    const { state, trace } = callInProgress({ deps: { idempotency: recorded.store }, state: { tool } });
    await recorded.store.begin(state.idempotencyKey, intentOf(FINGERPRINT));
    const ending = await findRecorded(state);
    expect(ending).toMatchObject({ status: "outcome_unknown", failure: "fatal", trust: "runtime" });
    expect(ending?.content).toContain('outcome unknown after a crash: note {"text":"hi"}');
    expect(ending?.content).toContain("did not run it again");
    expect(trace.ofKind("tool.outcome_unknown")[0]?.payload).toMatchObject({ action: 'note {"text":"hi"}' });
  });

  it("lets an idempotent call whose intent has no outcome run again", async () => {
    const { state } = callInProgress({ deps: { idempotency: recorded.store }, state: { tool } });
    await recorded.store.begin(state.idempotencyKey, intentOf(FINGERPRINT, true));
    expect(await findRecorded(state)).toBeUndefined();
    expect(state.recorded).toBeUndefined();
  });
});
