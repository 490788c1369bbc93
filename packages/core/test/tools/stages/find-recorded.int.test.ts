import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Sha256, sha256 } from "../../../src/canonical/canonical-json.ts";
import { IdempotencyStore } from "../../../src/stores/idempotency-store.ts";
import { findRecorded } from "../../../src/tools/executor/stages/find-recorded.ts";
import { redisForTest } from "../redis-harness.ts";
import { callInProgress, FINGERPRINT, noteTool } from "./stage-harness.ts";

let env: ReturnType<typeof redisForTest>;
beforeEach(() => {
  env = redisForTest();
});
afterEach(() => env.close());

const recordOf = (fingerprint: Sha256) => ({ schemaVersion: 1 as const, fingerprint, rendered: "noted hi", rawOutputHash: sha256("noted hi"), empty: false, observedAt: "2026-11-30T00:00:00.000Z" });

describe("find-recorded stage", () => {
  it("finds what an earlier run of this same call recorded under its key", async () => {
    const idempotency = new IdempotencyStore(env.redis, env.keys);
    const { state } = callInProgress({ deps: { idempotency }, state: { tool: noteTool().tool } });
    await idempotency.record(state.idempotencyKey, recordOf(FINGERPRINT));
    expect(await findRecorded(state)).toBeUndefined();
    expect(state.recorded?.rendered).toBe("noted hi");
  });

  it("ignores a record of a different action at the same key", async () => {
    const idempotency = new IdempotencyStore(env.redis, env.keys);
    const { state } = callInProgress({ deps: { idempotency }, state: { tool: noteTool().tool } });
    await idempotency.record(state.idempotencyKey, recordOf(sha256("other")));
    await findRecorded(state);
    expect(state.recorded).toBeUndefined();
  });
});
