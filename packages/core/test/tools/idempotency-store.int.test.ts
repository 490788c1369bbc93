import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sha256 } from "../../src/canonical/canonical-json.ts";
import { IdempotencyStore } from "../../src/stores/idempotency-store.ts";
import { redisForTest } from "./redis-harness.ts";
import { FINGERPRINT, intentOf } from "./stages/stage-harness.ts";

let env: ReturnType<typeof redisForTest>;
let store: IdempotencyStore;
beforeEach(() => {
  env = redisForTest();
  store = new IdempotencyStore(env.redis, env.keys);
});
afterEach(() => env.close());

const KEY = "run_i:s1:1:0";
const result = (rendered: string) => ({ schemaVersion: 1 as const, kind: "result" as const, fingerprint: FINGERPRINT, rendered, rawOutputHash: sha256(rendered), empty: false, observedAt: "2026-12-01T00:00:00.000Z" });

describe("IdempotencyStore: intent, then the outcome that replaces it", () => {
  it("writes an intent only where there is no record, and hands back the record that is there", async () => {
    expect(await store.begin(KEY, intentOf(FINGERPRINT))).toEqual({ begun: true });
    const second = await store.begin(KEY, { ...intentOf(FINGERPRINT), token: "t2" });
    expect(second).toMatchObject({ begun: false, existing: { kind: "intent", token: "t1" } });
  });

  it("replaces the writer's own intent with its outcome, with a TTL", async () => {
    await store.begin(KEY, intentOf(FINGERPRINT));
    expect(await store.finish(KEY, intentOf(FINGERPRINT), result("done"))).toEqual({ recorded: true });
    expect(await store.get(KEY)).toMatchObject({ kind: "result", rendered: "done" });
    expect(await env.redis.ttl(env.keys.idempotency(KEY))).toBeGreaterThan(0);
  });

  it("lists each record in its run's set, and an outcome keeps the expiry the run's retirement gave its intent", async () => {
    await store.begin(KEY, intentOf(FINGERPRINT));
    expect(await env.redis.smembers(env.keys.runIdempotency("run_i"))).toEqual([env.keys.idempotency(KEY)]);
    expect(await env.redis.ttl(env.keys.idempotency(KEY))).toBeGreaterThan(3_600);
    // What the run's retirement does to the records it lists.
    await env.redis.expire(env.keys.idempotency(KEY), 60);
    await store.finish(KEY, intentOf(FINGERPRINT), result("done"));
    const ttl = await env.redis.ttl(env.keys.idempotency(KEY));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60);
  });

  it("never overwrites a record another writer owns: its outcome is the one that counts", async () => {
    await store.begin(KEY, intentOf(FINGERPRINT));
    await store.finish(KEY, intentOf(FINGERPRINT), result("first"));
    const late = await store.finish(KEY, { ...intentOf(FINGERPRINT), token: "t2" }, result("second"));
    expect(late).toMatchObject({ recorded: false, existing: { rendered: "first" } });
    expect(await store.get(KEY)).toMatchObject({ rendered: "first" });
  });

  it("removes an intent only for the writer that wrote it", async () => {
    await store.begin(KEY, intentOf(FINGERPRINT));
    await store.abandon(KEY, { ...intentOf(FINGERPRINT), token: "someone-else" });
    expect(await store.get(KEY)).toMatchObject({ kind: "intent" });
    await store.abandon(KEY, intentOf(FINGERPRINT));
    expect(await store.get(KEY)).toBeUndefined();
  });

  it("keeps a failure as the outcome, to replay it", async () => {
    await store.begin(KEY, intentOf(sha256("x")));
    const failure = { schemaVersion: 1 as const, kind: "failure" as const, fingerprint: sha256("x"), status: "timeout" as const, error: "slow", failure: "different_action" as const, attempts: 1, observedAt: "2026-12-01T00:00:00.000Z" };
    await store.finish(KEY, intentOf(sha256("x")), failure);
    expect(await store.get(KEY)).toEqual(failure);
  });

  it("reads a record that is not JSON, or not a record, as no record", async () => {
    await env.redis.set(env.keys.idempotency(KEY), "{not json");
    expect(await store.get(KEY)).toBeUndefined();
    await env.redis.set(env.keys.idempotency(KEY), JSON.stringify({ schemaVersion: 9 }));
    expect(await store.get(KEY)).toBeUndefined();
  });
});

describe("IdempotencyStore: writes for a step's owner", () => {
  const owner = (token: string) => ({ runId: "run_i", stepId: "s1", token });
  beforeEach(async () => {
    await env.redis.set(env.keys.stepOwner("run_i", "s1"), "worker-b");
  });

  it("writes nothing for a worker whose step another has claimed, and says so", async () => {
    await expect(store.begin(KEY, intentOf(FINGERPRINT), owner("worker-a"))).rejects.toMatchObject({ code: "lock_lost" });
    await expect(store.restart(KEY, intentOf(FINGERPRINT, true), owner("worker-a"))).rejects.toMatchObject({ code: "lock_lost" });
    expect(await store.get(KEY)).toBeUndefined();
  });

  it("keeps the intent of a worker cut off mid-call: its late outcome, or its abandoning, is refused", async () => {
    await store.begin(KEY, intentOf(FINGERPRINT), owner("worker-b"));
    await env.redis.set(env.keys.stepOwner("run_i", "s1"), "worker-c");
    await expect(store.finish(KEY, intentOf(FINGERPRINT), result("late"), owner("worker-b"))).rejects.toMatchObject({ code: "lock_lost" });
    await expect(store.abandon(KEY, intentOf(FINGERPRINT), owner("worker-b"))).rejects.toMatchObject({ code: "lock_lost" });
    expect(await store.get(KEY)).toMatchObject({ kind: "intent", token: "t1" });
  });

  it("starts no call in an ended run, but still records how a call its owner started there ended", async () => {
    await store.begin(KEY, intentOf(FINGERPRINT), owner("worker-b"));
    await env.redis.hset(env.keys.run("run_i"), "status", "cancelled");
    await expect(store.begin("run_i:s1:1:1", intentOf(FINGERPRINT), owner("worker-b"))).rejects.toMatchObject({ code: "run_ended", details: { status: "cancelled" } });
    expect(await store.get("run_i:s1:1:1")).toBeUndefined();
    expect(await store.finish(KEY, intentOf(FINGERPRINT), result("done"), owner("worker-b"))).toEqual({ recorded: true });
    expect(await store.get(KEY)).toMatchObject({ kind: "result", rendered: "done" });
  });

  it("refuses a script reply that is not a verdict instead of reading it as one", async () => {
    // A client in front of Redis (a proxy, another server) answering the script with something else.
    const odd = new Proxy(env.redis, { get: (target, name) => (name === "eval" ? async () => 42 : Reflect.get(target, name)) });
    await expect(new IdempotencyStore(odd, env.keys).begin(KEY, intentOf(FINGERPRINT))).rejects.toMatchObject({
      code: "contract_invalid",
      message: expect.stringContaining("the idempotency script for the call's intent replied 42; expected its verdict"),
    });
  });
});
