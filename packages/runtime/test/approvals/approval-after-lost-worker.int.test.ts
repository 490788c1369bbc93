import { beforeEach, describe, expect, it } from "vitest";
import { sha256 } from "@rein/contracts";
import { actionHashOf } from "@rein/contracts/calls";
import { ApprovalSigner, ApprovalVerifier, generateKeyPair } from "@rein/signing";
import { IdempotencyStore } from "../../src/stores/idempotency-store.ts";
import { call, harness, restartServiceTool } from "@rein/tools/testing";
import { approvalsPerTest } from "../tools/approvals-per-test.ts";

const deciderKeys = generateKeyPair();
const signer = new ApprovalSigner(deciderKeys.privateKey);
const approvalVerifier = new ApprovalVerifier(deciderKeys.publicKey);

let clock: number;
const fixture = approvalsPerTest({ now: () => clock });
let idempotency: IdempotencyStore;
beforeEach(() => {
  clock = Date.parse("2030-01-01T00:00:00Z");
  idempotency = new IdempotencyStore(fixture.env.redis, fixture.env.keys);
});

/** The model's call; the same block is re-issued when its step resumes on the next worker. */
const restartApiCall = call("restart_service", { service: "api" }, { id: "call_restart_api" });
const restartApi = () => restartApiCall;
const action = { tool: "restart_service", args: { service: "api" }, scope: { services: ["api"] } };
/** The idempotency key of the step's call at `index` (attempt 1), as the executor names it. */
const callKey = (index: number) => `run_test:step_test:1:${index}`;

/**
 * The call at index 0 asked, a person approved, and the worker that then
 * consumed the approval was lost (SIGKILLed, or its job taken over) before
 * it recorded anything: what the next worker finds.
 */
async function approvedThenLost(withIdempotency: boolean) {
  const { tool, counter } = restartServiceTool();
  const executor = harness({
    tools: [tool],
    surface: [{ name: "restart_service", scope: {} }],
    workspace: fixture.workspace,
    deps: { approvals: fixture.approvals, approvalVerifier, now: () => clock, ...(withIdempotency ? { idempotency } : {}) },
  });
  // The step's deadline on the same test clock as the approvals.
  const context = (overrides: Parameters<typeof executor.context>[0] = {}) =>
    executor.context({ budget: { maxToolCalls: 30, deadline: clock + 3 * 3_600_000 }, ...overrides });
  const asked = await executor.executor.execute(restartApi(), 0, context());
  const approvalId = asked.suspend?.approvalId as string;
  await fixture.approvals.decide(approvalId, { decision: "approved", approver: "alice" }, signer);
  expect(await fixture.approvals.consume(actionHashOf(action), "run_test", "step_test", callKey(0))).not.toBeNull();
  return { ...executor, context, counter, approvalId };
}

describe("an approval whose call's worker was lost after it used the approval", () => {
  it("still covers that call when the next worker re-issues it: it runs, once, and no one is asked again", async () => {
    const { executor, context, counter, approvalId, trace } = await approvedThenLost(true);
    const resumed = await executor.execute(restartApi(), 0, context());
    expect(resumed.observation.status).toBe("ok");
    expect(counter.runs).toBe(1);
    expect(trace.kinds().filter((kind) => kind === "approval.requested")).toHaveLength(1);
    expect((await fixture.approvals.list({ runId: "run_test" })).map((approval) => approval.approvalId)).toEqual([approvalId]);
  });

  it("does not run a non-idempotent call again once its effect had started: its outcome is unknown", async () => {
    const { executor, context, counter } = await approvedThenLost(true);
    const intent = {
      schemaVersion: 1,
      kind: "intent",
      fingerprint: sha256("restart api"),
      actionHash: actionHashOf(action),
      tool: "restart_service",
      repeatable: false,
      startedAt: "2030-01-01T00:00:00.000Z",
      token: "lost",
    } as const;
    await idempotency.begin(callKey(0), intent);
    const resumed = await executor.execute(restartApi(), 0, context());
    expect(resumed.observation.status).toBe("outcome_unknown");
    expect(counter.runs).toBe(0);
  });

  it("is not honoured for that call once its expiry has passed: the person is asked again", async () => {
    const { executor, context, counter, approvalId } = await approvedThenLost(true);
    clock += 2 * 3_600_000;
    const resumed = await executor.execute(restartApi(), 0, context());
    expect(resumed.observation.status).toBe("denied");
    expect(resumed.observation.content).toMatch(/expired/);
    expect(counter.runs).toBe(0);
    expect((await fixture.approvals.get(approvalId))?.status).toBe("consumed");
  });

  it("covers no other call of the same action: a later one, one reusing its call id, or a retry's, is asked about anew", async () => {
    const { executor, context, counter, approvalId } = await approvedThenLost(true);
    const later = await executor.execute(call("restart_service", { service: "api" }, { id: "call_restart_api_later" }), 1, context());
    const sameIdLater = await executor.execute(restartApi(), 2, context());
    const retried = await executor.execute(restartApi(), 0, context({ attempt: 2 }));
    for (const outcome of [later, sameIdLater, retried]) {
      expect(outcome.observation.status).toBe("pending_approval");
      expect(outcome.suspend?.approvalId).not.toBe(approvalId);
    }
    expect(counter.runs).toBe(0);
  });

  it("is asked about anew for a non-idempotent call where no intent record could tell whether its effect started", async () => {
    const { executor, context, counter, approvalId } = await approvedThenLost(false);
    const resumed = await executor.execute(restartApi(), 0, context());
    expect(resumed.observation.status).toBe("pending_approval");
    expect(resumed.suspend?.approvalId).not.toBe(approvalId);
    expect(counter.runs).toBe(0);
  });
});
