import { describe, expect, it } from "vitest";
import { ApprovalVerifier, generateKeyPair } from "@rein/signing";
import { call, harness, restartServiceTool } from "@rein/tools/testing";
import { approvalsPerTest } from "../tools/approvals-per-test.ts";

const approvalVerifier = new ApprovalVerifier(generateKeyPair().publicKey);
const fixture = approvalsPerTest();

/** An executor offering restart_service, which needs a person's approval, over the fixture's approval store. */
function restartWithApprovals() {
  const { tool, counter } = restartServiceTool();
  const executor = harness({
    tools: [tool],
    surface: [{ name: "restart_service", scope: {} }],
    workspace: fixture.workspace,
    deps: { approvals: fixture.approvals, approvalVerifier },
  });
  return { ...executor, counter };
}

describe("a call that needs approval in a step that has spent its budget", () => {
  it("is refused for the budget without asking a person: an approval it could never use is not requested", async () => {
    const { run, trace, counter } = restartWithApprovals();
    const spent = await run(call("restart_service", { service: "api" }), {
      budget: { maxToolCalls: 2, deadline: Date.now() + 60_000 },
      callsSoFar: 2,
    });
    expect(spent.observation.status).toBe("budget_exhausted");
    expect(spent.suspend).toBeUndefined();
    expect(trace.kinds()).not.toContain("approval.requested");
    expect(await fixture.approvals.list({ runId: "run_test" })).toEqual([]);
    expect(counter.runs).toBe(0);
  });

  it("still asks while the step has calls left", async () => {
    const { run } = restartWithApprovals();
    const asked = await run(call("restart_service", { service: "api" }), {
      budget: { maxToolCalls: 2, deadline: Date.now() + 60_000 },
      callsSoFar: 1,
    });
    expect(asked.observation.status).toBe("pending_approval");
    expect(await fixture.approvals.list({ runId: "run_test", status: "pending" })).toHaveLength(1);
  });
});
