import { beforeEach, describe, expect, it } from "vitest";
import { actionHashOf } from "../../src/approvals/action-hash.ts";
import { ApprovalSigner, ApprovalVerifier } from "../../src/approvals/approval-signature.ts";
import { ApprovalStore } from "../../src/approvals/approval-store.ts";
import { generateKeyPair } from "../../src/keys/key-files.ts";
import type { ToolGrant } from "../../src/contracts/index.ts";
import type { ToolCallOutcome } from "../../src/tools/tool-executor.ts";
import { call, harness, type MemoryTrace } from "../tools/harness.ts";
import { restartServiceTool } from "../tools/hostile-tools.ts";
import { approvalsPerTest } from "../tools/approvals-per-test.ts";

// A program that can write to Redis (an escaped tool, a compromised worker
// host, anyone with the Redis password) tries to make the gate run an action
// no person approved. Only the deciders hold the approval private key; the
// gate holds the public key and must refuse every record it did not sign.

let clock: number;
const fixture = approvalsPerTest({ now: () => clock });
const deciderKeys = generateKeyPair();
const signer = new ApprovalSigner(deciderKeys.privateKey);
const verifier = new ApprovalVerifier(deciderKeys.publicKey);

beforeEach(() => {
  clock = Date.parse("2030-01-01T00:00:00Z");
});

const grant = (name: string): ToolGrant => ({ name, scope: {} });
const api = { tool: "restart_service", args: { service: "api" }, scope: { services: ["api"] } };

function setup() {
  const { tool, counter } = restartServiceTool();
  const { run, trace } = harness({
    tools: [tool],
    surface: [grant("restart_service")],
    workspace: fixture.workspace,
    deps: { approvals: fixture.approvals, approvalVerifier: verifier, now: () => clock },
  });
  // The step's deadline on the same test clock as the approvals.
  const budget = () => ({ maxToolCalls: 30, deadline: clock + 60_000 });
  return { run: () => run(call("restart_service", { service: "api" }), { budget: budget() }), trace, counter };
}

function expectRefusedAsForged(outcome: ToolCallOutcome, trace: MemoryTrace, runs: number) {
  expect(runs).toBe(0);
  expect(outcome.observation.status).toBe("denied");
  expect(outcome.observation.content).toMatch(/was not executed/);
  expect(outcome.observation.content).toMatch(/not approved/);
  expect(trace.kinds()).toContain("approval.forged");
  expect(trace.kinds()).not.toContain("approval.consumed");
  expect(trace.kinds()).not.toContain("tool.executed");
}

describe("an approval record forged in Redis", () => {
  it("is refused when a pending approval is flipped to approved with HSET", async () => {
    const { run, trace, counter } = setup();
    const asked = await run();
    const approvalId = asked.suspend?.approvalId as string;
    await fixture.env.redis.hset(fixture.env.keys.approval(approvalId), { status: "approved", approver: "cli:alice", decidedAt: new Date(clock).toISOString() });

    const outcome = await run();
    expectRefusedAsForged(outcome, trace, counter.runs);
    expect(trace.ofKind("approval.forged")[0]?.payload).toMatchObject({ approvalId, status: "approved" });
  });

  it("is refused when the whole record and its action pointer are written from nothing", async () => {
    const { run, trace, counter } = setup();
    const actionHash = actionHashOf(api);
    const approvalId = "apr_forged0000000000";
    const now = new Date(clock).toISOString();
    const data = { schemaVersion: 1, approvalId, runId: "run_test", stepId: "step_test", ...api, actionHash, createdAt: now, expiresAt: new Date(clock + 3_600_000).toISOString() };
    await fixture.env.redis.hset(fixture.env.keys.approval(approvalId), {
      data: JSON.stringify(data),
      status: "approved",
      actionHash,
      runId: "run_test",
      stepId: "step_test",
      expiresAtMs: String(clock + 3_600_000),
      approver: "cli:alice",
      decidedAt: now,
      signature: Buffer.alloc(64, 7).toString("base64"),
    });
    await fixture.env.redis.hset(fixture.env.keys.approvalByAction(actionHash), "run_test:step_test", approvalId);

    expectRefusedAsForged(await run(), trace, counter.runs);
  });

  it("is refused when signed by a key that is not the deciders'", async () => {
    const { run, trace, counter } = setup();
    const asked = await run();
    const mallory = new ApprovalStore(fixture.env.redis, fixture.env.keys, { ttlSeconds: 3600, now: () => clock });
    await mallory.decide(asked.suspend?.approvalId as string, { decision: "approved", approver: "mallory" }, new ApprovalSigner(generateKeyPair().privateKey));

    expectRefusedAsForged(await run(), trace, counter.runs);
  });

  it("is refused when a signed denial is turned into an approval", async () => {
    const { run, trace, counter } = setup();
    const asked = await run();
    const approvalId = asked.suspend?.approvalId as string;
    await fixture.approvals.decide(approvalId, { decision: "denied", approver: "bob", reason: "peak hours" }, signer);
    await fixture.env.redis.hset(fixture.env.keys.approval(approvalId), "status", "approved");

    expectRefusedAsForged(await run(), trace, counter.runs);
  });

  it("is refused when a signed approval for another action is pointed at this one", async () => {
    const { run, trace, counter } = setup();
    const cache = { ...api, args: { service: "cache" }, scope: { services: ["cache"] } };
    const other = await fixture.approvals.ask("run_test", "step_test", cache);
    await fixture.approvals.decide(other.approval.approvalId, { decision: "approved", approver: "alice" }, signer);
    const key = fixture.env.keys.approval(other.approval.approvalId);
    const data = JSON.parse((await fixture.env.redis.hget(key, "data")) as string);
    const actionHash = actionHashOf(api);
    await fixture.env.redis.hset(key, { data: JSON.stringify({ ...data, ...api, actionHash }), actionHash });
    await fixture.env.redis.hset(fixture.env.keys.approvalByAction(actionHash), "run_test:step_test", other.approval.approvalId);

    expectRefusedAsForged(await run(), trace, counter.runs);
  });

  it("is refused when a signed approval from another step is moved to this one", async () => {
    const { run, trace, counter } = setup();
    const elsewhere = await fixture.approvals.ask("run_test", "step_other", api);
    await fixture.approvals.decide(elsewhere.approval.approvalId, { decision: "approved", approver: "alice" }, signer);
    const key = fixture.env.keys.approval(elsewhere.approval.approvalId);
    const data = JSON.parse((await fixture.env.redis.hget(key, "data")) as string);
    await fixture.env.redis.hset(key, { data: JSON.stringify({ ...data, stepId: "step_test" }), stepId: "step_test" });
    await fixture.env.redis.hset(fixture.env.keys.approvalByAction(actionHashOf(api)), "run_test:step_test", elsewhere.approval.approvalId);

    expectRefusedAsForged(await run(), trace, counter.runs);
  });

  it("is refused when the expiry of a signed approval is pushed back after it passed", async () => {
    const { run, trace, counter } = setup();
    const asked = await run();
    const approvalId = asked.suspend?.approvalId as string;
    await fixture.approvals.decide(approvalId, { decision: "approved", approver: "alice" }, signer);
    clock += 2 * 3_600_000;
    const key = fixture.env.keys.approval(approvalId);
    const data = JSON.parse((await fixture.env.redis.hget(key, "data")) as string);
    const later = clock + 3_600_000;
    await fixture.env.redis.hset(key, { data: JSON.stringify({ ...data, expiresAt: new Date(later).toISOString() }), expiresAtMs: String(later) });

    expectRefusedAsForged(await run(), trace, counter.runs);
  });
});

describe("a pending approval altered in Redis", () => {
  it("cannot be decided: a person signs only the action they were shown", async () => {
    const { run, counter } = setup();
    const asked = await run();
    const approvalId = asked.suspend?.approvalId as string;
    const key = fixture.env.keys.approval(approvalId);
    const data = JSON.parse((await fixture.env.redis.hget(key, "data")) as string);
    // Shown as a harmless restart of "docs", still bound to the hash of restarting "api".
    await fixture.env.redis.hset(key, "data", JSON.stringify({ ...data, args: { service: "docs" }, scope: { services: ["docs"] } }));

    await expect(fixture.approvals.decide(approvalId, { decision: "approved", approver: "alice" }, signer)).rejects.toThrow(/altered in Redis/);
    expect((await fixture.approvals.get(approvalId))?.status).toBe("pending");
    expect(counter.runs).toBe(0);
  });
});

describe("a pending approval whose expiry was pushed back in Redis", () => {
  it("cannot be decided, so no signed decision outlives the deployment's approval lifetime", async () => {
    const { run } = setup();
    const asked = await run();
    const approvalId = asked.suspend?.approvalId as string;
    const key = fixture.env.keys.approval(approvalId);
    const data = JSON.parse((await fixture.env.redis.hget(key, "data")) as string);
    const aYear = clock + 365 * 24 * 3_600_000;
    await fixture.env.redis.hset(key, { data: JSON.stringify({ ...data, expiresAt: new Date(aYear).toISOString() }), expiresAtMs: String(aYear) });

    await expect(fixture.approvals.decide(approvalId, { decision: "approved", approver: "alice" }, signer)).rejects.toThrow(/later than approvals\.ttlSeconds/);
    expect((await fixture.approvals.get(approvalId))?.status).toBe("pending");
  });
});

describe("a genuine signed approval", () => {
  it("runs its action once", async () => {
    const { run, trace, counter } = setup();
    const asked = await run();
    await fixture.approvals.decide(asked.suspend?.approvalId as string, { decision: "approved", approver: "alice" }, signer);
    const ran = await run();
    expect(ran.observation.status).toBe("ok");
    expect(counter.runs).toBe(1);
    expect(trace.kinds()).toContain("approval.consumed");
    expect(trace.kinds()).not.toContain("approval.forged");
  });

  it("is never honoured after it expires", async () => {
    const { run, trace, counter } = setup();
    const asked = await run();
    await fixture.approvals.decide(asked.suspend?.approvalId as string, { decision: "approved", approver: "alice" }, signer);
    clock += 3_600_000;
    const late = await run();
    expect(late.observation.status).toBe("denied");
    expect(late.observation.content).toMatch(/expired/);
    expect(counter.runs).toBe(0);
    expect(trace.kinds()).toContain("approval.refused");
    expect(trace.kinds()).not.toContain("tool.executed");
  });
});
