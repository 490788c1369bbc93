import { Redis } from "ioredis";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ReinError } from "@rein/contracts";
import { actionHashOf } from "@rein/contracts/calls";
import { ApprovalSigner, generateKeyPair } from "@rein/signing";
import { ApprovalStore } from "../../src/approvals/approval-store.ts";
import { REDIS_URL, redisForTest } from "../tools/redis-harness.ts";

const deciderKeys = generateKeyPair();
const signer = new ApprovalSigner(deciderKeys.privateKey);

let env: ReturnType<typeof redisForTest>;
let clock: number;
let store: ApprovalStore;
const action = { tool: "restart_service", args: { service: "api" }, scope: { services: ["api"] } };
/** The call that asks (`<attempt>:<the model's call id>`). */
const CALL = "1:call_restart";

beforeEach(() => {
  env = redisForTest();
  clock = Date.parse("2030-01-01T00:00:00Z");
  store = new ApprovalStore(env.redis, env.keys, { ttlSeconds: 60, now: () => clock });
});
afterEach(() => env.close());

describe("ApprovalStore", () => {
  it("binds an approval to the action hash and reuses the pending one", async () => {
    const first = await store.ask("run_1", "step_1", action, CALL);
    expect(first.reused).toBe(false);
    expect(first.approval).toMatchObject({ status: "pending", actionHash: actionHashOf(action), runId: "run_1", stepId: "step_1" });
    expect(first.approval.expiresAt).toBe("2030-01-01T00:01:00.000Z");
    const again = await store.ask("run_1", "step_1", action, CALL);
    expect(again).toMatchObject({ reused: true, approval: { approvalId: first.approval.approvalId, call: CALL } });
    // Another call of the same action gets an approval of its own: a decision covers the one call that asked.
    const otherCall = await store.ask("run_1", "step_1", action, "1:call_other");
    expect(otherCall.reused).toBe(false);
    expect(otherCall.approval.approvalId).not.toBe(first.approval.approvalId);
    const changed = await store.ask("run_1", "step_1", { ...action, args: { service: "db" } }, CALL);
    expect(changed.approval.approvalId).not.toBe(first.approval.approvalId);
    expect(changed.approval.actionHash).not.toBe(first.approval.actionHash);
  });

  it("records who decided and when, and decides only once", async () => {
    const { approval } = await store.ask("run_1", "step_1", action, CALL);
    clock += 5_000;
    const decided = await store.decide(approval.approvalId, { decision: "approved", approver: "alice", note: "ok for api" }, signer);
    expect(decided).toMatchObject({ status: "approved", approver: "alice", note: "ok for api", decidedAt: "2030-01-01T00:00:05.000Z" });
    const second = store.decide(approval.approvalId, { decision: "denied", approver: "mallory" }, signer);
    await expect(second).rejects.toSatisfy((error) => ReinError.hasCode(error, "approval_invalid"));
    expect((await store.get(approval.approvalId))?.approver).toBe("alice");
  });

  it("expires a pending approval that nobody decided in time", async () => {
    const { approval } = await store.ask("run_1", "step_1", action, CALL);
    clock += 61_000;
    expect((await store.get(approval.approvalId))?.status).toBe("expired");
    await expect(store.decide(approval.approvalId, { decision: "approved", approver: "late" }, signer)).rejects.toSatisfy((error) =>
      ReinError.hasCode(error, "approval_invalid"),
    );
  });

  it("consumes an approval exactly once, and only for its own action, run and step", async () => {
    const { approval } = await store.ask("run_1", "step_1", action, CALL);
    await store.decide(approval.approvalId, { decision: "approved", approver: "alice" }, signer);
    const hash = approval.actionHash;
    expect(await store.consume(actionHashOf({ ...action, args: { service: "db" } }), "run_1", "step_1")).toBeNull();
    expect(await store.consume(hash, "run_1", "step_2")).toBeNull();
    const racers = await Promise.all([1, 2, 3, 4, 5].map(() => store.consume(hash, "run_1", "step_1")));
    expect(racers.filter((won) => won !== null)).toHaveLength(1);
    expect((await store.get(approval.approvalId))?.status).toBe("consumed");
  });

  it("never consumes a denied or pending approval", async () => {
    const pending = await store.ask("run_1", "step_1", action, CALL);
    expect(await store.consume(pending.approval.actionHash, "run_1", "step_1")).toBeNull();
    await store.decide(pending.approval.approvalId, { decision: "denied", approver: "bob", reason: "not today" }, signer);
    expect(await store.consume(pending.approval.actionHash, "run_1", "step_1")).toBeNull();
    expect(await store.get(pending.approval.approvalId)).toMatchObject({ status: "denied", reason: "not today" });
  });

  it("lists by run, step and status", async () => {
    const a = await store.ask("run_1", "step_1", action, CALL);
    await store.ask("run_1", "step_2", action, CALL);
    await store.ask("run_2", "step_1", action, CALL);
    await store.decide(a.approval.approvalId, { decision: "approved", approver: "alice" }, signer);
    expect((await store.list({ runId: "run_1" })).map((approval) => approval.stepId).sort()).toEqual(["step_1", "step_2"]);
    expect((await store.list({ status: "approved" })).map((approval) => approval.approvalId)).toEqual([a.approval.approvalId]);
    expect(await store.list({ runId: "run_2", status: "pending" })).toHaveLength(1);
  });

  it("persists: a new store on a new connection sees the same approvals", async () => {
    const { approval } = await store.ask("run_1", "step_1", action, CALL);
    await store.decide(approval.approvalId, { decision: "approved", approver: "alice" }, signer);
    const other = new Redis(REDIS_URL);
    try {
      const reopened = new ApprovalStore(other, env.keys, { ttlSeconds: 60, now: () => clock });
      expect(await reopened.get(approval.approvalId)).toMatchObject({ status: "approved", approver: "alice" });
      expect(await reopened.consume(approval.actionHash, "run_1", "step_1")).not.toBeNull();
      expect((await store.get(approval.approvalId))?.status).toBe("consumed");
    } finally {
      other.disconnect();
    }
  });

  it("keeps an ended run's approvals within the run's retention and forgets their action pointers", async () => {
    const { approval } = await store.ask("run_1", "step_1", action, CALL);
    await store.decide(approval.approvalId, { decision: "approved", approver: "oncall" }, signer);
    const other = await store.ask("run_2", "step_1", action, CALL);
    // Kept for the audit trail: its decision window and seven days while the run goes on.
    expect(await env.redis.ttl(env.keys.approval(approval.approvalId))).toBeGreaterThan(7 * 24 * 3600);

    await store.retireRun("run_1", 600);
    const ttl = await env.redis.ttl(env.keys.approval(approval.approvalId));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(600);
    expect(await env.redis.ttl(env.keys.runApprovals("run_1"))).toBeLessThanOrEqual(600);
    expect((await store.get(approval.approvalId))?.status).toBe("approved");
    expect(await store.findForAction("run_1", "step_1", actionHashOf(action))).toBeNull();
    // Another run asking for the same action keeps its pointer and its approval's own TTL.
    expect((await store.findForAction("run_2", "step_1", actionHashOf(action)))?.approvalId).toBe(other.approval.approvalId);
    expect(await env.redis.ttl(env.keys.approval(other.approval.approvalId))).toBeGreaterThan(7 * 24 * 3600);

    // A replayed retirement with a longer TTL does not lengthen it.
    await store.retireRun("run_1", 3_600);
    expect(await env.redis.ttl(env.keys.approval(approval.approvalId))).toBeLessThanOrEqual(600);
  });

  it("expires an ended run's pending approvals: no one can approve an action its run will never take", async () => {
    const { approval: pending } = await store.ask("run_1", "step_1", action, CALL);
    const { approval: decided } = await store.ask("run_1", "step_2", action, CALL);
    await store.decide(decided.approvalId, { decision: "denied", approver: "oncall", reason: "not now" }, signer);
    const { approval: otherRun } = await store.ask("run_2", "step_1", action, CALL);

    await store.retireRun("run_1", 600);
    expect((await store.get(pending.approvalId))?.status).toBe("expired");
    await expect(store.decide(pending.approvalId, { decision: "approved", approver: "oncall" }, signer)).rejects.toThrow(
      /is expired; only a pending approval can be decided/,
    );
    expect((await store.get(decided.approvalId))?.status).toBe("denied");
    expect((await store.get(otherRun.approvalId))?.status).toBe("pending");
    expect((await store.list({ status: "pending" })).map((approval) => approval.approvalId)).toEqual([otherRun.approvalId]);
  });

  it("drops index entries of approvals asked longer ago than an approval is kept", async () => {
    const { approval: old } = await store.ask("run_1", "step_1", action, CALL);
    clock += (60 + 7 * 24 * 3600) * 1000 + 1;
    await store.ask("run_2", "step_1", action, CALL);
    expect(await env.redis.zscore(env.keys.approvalIndex(), old.approvalId)).toBeNull();
  });
});
