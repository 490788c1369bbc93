import { afterEach, describe, expect, it } from "vitest";
import { defineTool, isTerminal, type ModelScriptInput, type ReinRuntime, z } from "@rein/core";
import { decideApproval } from "../src/approvals/decide-approval.ts";
import { type RunningRoles, startRoles } from "../src/roles/start-roles.ts";
import { type Harness, startHarness } from "./support/harness.ts";

/**
 * An idempotent restart that always needs approval. Its first `hangs` runs
 * never end (the worker running them is then killed, as SIGKILL would leave
 * them); only a run that returns counts as a restart.
 */
function hangingRestart(hangs: number) {
  const hung: (() => void)[] = [];
  const counts = { runs: 0, restarts: 0 };
  const tool = defineTool({
    name: "restart_service",
    description: "Restarts a service; restarting it twice is the same as once.",
    effect: "destructive",
    idempotent: true,
    approval: "always",
    timeoutMs: 600_000,
    input: z.object({ service: z.string() }),
    scope: (args) => ({ services: [args.service] }),
    run: async (args) => {
      counts.runs += 1;
      if (counts.runs <= hangs) await new Promise<never>((_resolve, reject) => hung.push(() => reject(new Error("the killed worker's call, released at the end of the test"))));
      counts.restarts += 1;
      return `restarted ${args.service}`;
    },
  });
  const release = () => {
    for (const unblock of hung.splice(0)) unblock();
  };
  return { tool, counts, release };
}

const script: ModelScriptInput = {
  planner: [
    {
      match: "Completed steps: none",
      turns: [
        {
          output: {
            current_step: { title: "Restart the api", objective: "Restart payment-api with restart_service.", tools: ["restart_service"], output_contract: { description: "one line", format: "text" } },
            next_steps: [],
            risks: [],
            done: false,
          },
        },
      ],
    },
    {
      match: "Completed steps: 1",
      turns: [{ output: { current_step: null, done: true, answer: { answer: "payment-api was restarted", claims: [{ text: "payment-api was restarted", evidence: ["{{evidence:restart_service}}"] }], gaps: [] } } }],
    },
  ],
  worker: [{ match: "Task: Restart the api", turns: [{ toolCalls: [{ name: "restart_service", input: { service: "payment-api" } }] }, { text: "restarted payment-api" }] }],
};

async function until(what: string, holds: () => boolean | Promise<boolean>, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await holds())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Kills a step worker the way SIGKILL does, as far as Redis can tell: its locks are no longer renewed and its jobs never finish. */
async function killStepRole(role: RunningRoles): Promise<void> {
  await Promise.all(role.workers.map((worker) => worker.close(true)));
}

// Step workers killed and restarted with one-second locks on a loaded machine: sized generously, not a timing assertion.
describe("a step resumed from an approval whose workers are lost", { timeout: 240_000 }, () => {
  let harness: Harness | undefined;
  const extraRoles: RunningRoles[] = [];
  let restart: ReturnType<typeof hangingRestart> | undefined;
  afterEach(async () => {
    restart?.release();
    for (const role of extraRoles.splice(0)) await role.close(0);
    await harness?.close();
    harness = undefined;
  });

  it("is re-dispatched past its stall limit and runs the approved call once, without asking the person again", async () => {
    restart = hangingRestart(2);
    harness = await startHarness(script, [restart.tool], { config: { queues: { lockMs: 1_000, stalledIntervalMs: 1_000, step: { maxStalledCount: 1 } } } });
    const stepRuntime = harness.roleRuntimes[2] as ReinRuntime;
    const runId = await harness.submit({ text: "Restart payment-api", tools: [{ name: "restart_service" }] });
    const waiting = await harness.waitFor(runId, (state) => state.status === "waiting_approval" || isTerminal(state.status));
    expect(waiting.status).toBe("waiting_approval");
    const approvalId = waiting.pendingApprovals[0] as string;

    // The step role that asked is gone; the resumed job goes to workers that are killed mid-call, twice.
    await killStepRole(harness.roles[2] as RunningRoles);
    const startStepRole = () => {
      const role = startRoles(stepRuntime, { roles: ["step"], packetPublicKey: harness?.packetPublicKey, executor: harness?.tooling.executor, providers: { worker: harness?.worker } });
      extraRoles.push(role);
      return role;
    };
    await decideApproval(harness.runtime, harness.desk, approvalId, { decision: "approved", approver: "test:oncall" });
    for (let kill = 1; kill <= 2; kill += 1) {
      const role = startStepRole();
      await until(`the approved call's run ${kill}`, () => (restart?.counts.runs ?? 0) >= kill);
      await killStepRole(role);
    }
    startStepRole();

    const state = await harness.waitFor(runId, (candidate) => candidate.status === "waiting_approval" || isTerminal(candidate.status));
    expect(state.status, state.stopReason).toBe("done");
    expect(restart.counts.restarts).toBe(1);
    expect((await harness.desk.store.list({ runId })).map((approval) => approval.approvalId)).toEqual([approvalId]);
    const events = await stepRuntime.trace.read(runId);
    expect(events.filter((event) => event.kind === "step.redispatched")).toHaveLength(1);
    expect(events.filter((event) => event.kind === "approval.requested")).toHaveLength(1);
  });
});
