import { afterEach, describe, expect, it } from "vitest";
import { defineTool, isTerminal, type ModelScriptInput, type ReinRuntime, z } from "@rein/core";
import { type RunningRoles, startRoles } from "../src/roles/start-roles.ts";
import { type Harness, startHarness } from "./support/harness.ts";

/** An idempotent health check whose first `hangs` runs never end (the worker running them is then killed, as SIGKILL would leave them). */
function hangingCheck(hangs: number) {
  const hung: (() => void)[] = [];
  const counts = { runs: 0 };
  const tool = defineTool({
    name: "check_health",
    description: "Reads a service's health.",
    effect: "read",
    idempotent: true,
    timeoutMs: 600_000,
    input: z.object({ service: z.string() }),
    scope: (args) => ({ services: [args.service] }),
    run: async (args) => {
      counts.runs += 1;
      if (counts.runs <= hangs) await new Promise<never>((_resolve, reject) => hung.push(() => reject(new Error("the killed worker's call, released at the end of the test"))));
      return `${args.service} healthy`;
    },
  });
  const release = () => {
    for (const unblock of hung.splice(0)) unblock();
  };
  return { tool, counts, release };
}

// The parent delegates and checks health in the same turn: resumed with its child's result, it answers the
// delegate call from the resume and is killed inside the check, before the turn is checkpointed.
const script: ModelScriptInput = {
  planner: [
    {
      match: "Completed steps: none",
      turns: [
        {
          output: {
            current_step: { title: "Survey the api", objective: "Delegate the read, then check payment-api's health.", tools: ["check_health"], output_contract: { description: "one line", format: "text" } },
            next_steps: [],
            risks: [],
            done: false,
          },
        },
      ],
    },
    {
      match: "Completed steps: 1",
      turns: [{ output: { current_step: null, done: true, answer: { answer: "payment-api is healthy", claims: [{ text: "payment-api is healthy", evidence: ["{{evidence:check_health}}"] }], gaps: [] } } }],
    },
  ],
  worker: [
    {
      match: "Task: Survey the api",
      turns: [
        {
          toolCalls: [
            { name: "delegate", input: { reason: "a separate job", task: { title: "Check once", objective: "Check payment-api's health", tools: [{ name: "check_health", scope: { services: ["payment-api"] } }], budget: { maxTurns: 3 } } } },
            { name: "check_health", input: { service: "payment-api" } },
          ],
        },
        { text: "payment-api is healthy" },
      ],
    },
    { match: "Task: Check once", turns: [{ text: "payment-api looked fine" }] },
  ],
};

async function until(what: string, holds: () => boolean, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!holds()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Kills a step worker the way SIGKILL does, as far as Redis can tell: its locks are no longer renewed and its jobs never finish. */
async function killStepRole(role: RunningRoles): Promise<void> {
  await Promise.all(role.workers.map((worker) => worker.close(true)));
}

// Step workers killed and restarted with one-second locks on a loaded machine: sized generously, not a timing assertion.
describe("a step resumed from its child's result whose workers are lost", { timeout: 240_000 }, () => {
  let harness: Harness | undefined;
  const extraRoles: RunningRoles[] = [];
  let check: ReturnType<typeof hangingCheck> | undefined;
  afterEach(async () => {
    check?.release();
    for (const role of extraRoles.splice(0)) await role.close(0);
    await harness?.close();
    harness = undefined;
  });

  it("is re-dispatched past its stall limit with the child's result and does not delegate again", async () => {
    check = hangingCheck(2);
    harness = await startHarness(script, [check.tool], { config: { queues: { lockMs: 1_000, stalledIntervalMs: 1_000, step: { maxStalledCount: 1 } } } });
    const stepRuntime = harness.roleRuntimes[2] as ReinRuntime;
    const runId = await harness.submit({ text: "Is payment-api healthy?", tools: [{ name: "check_health" }] });
    const startStepRole = () => {
      const role = startRoles(stepRuntime, { roles: ["step"], packetPublicKey: harness?.packetPublicKey, executor: harness?.tooling.executor, providers: { worker: harness?.worker } });
      extraRoles.push(role);
      return role;
    };

    // The resumed parent hangs in its check; its worker, then the next one, are killed mid-call.
    await until("the resumed parent's first check", () => (check?.counts.runs ?? 0) >= 1);
    await killStepRole(harness.roles[2] as RunningRoles);
    const second = startStepRole();
    await until("the resumed parent's second check", () => (check?.counts.runs ?? 0) >= 2);
    await killStepRole(second);
    startStepRole();

    const state = await harness.waitFor(runId, (candidate) => isTerminal(candidate.status) || candidate.status === "waiting_approval");
    expect(state.status, state.stopReason).toBe("done");
    const events = await stepRuntime.trace.read(runId);
    expect(events.filter((event) => event.kind === "step.redispatched")).toHaveLength(1);
    expect(events.filter((event) => event.kind === "step.delegated")).toHaveLength(1);
    expect(state.steps.map((step) => step.stepId)).toEqual(["s1", "s1.1"]);
  });
});
