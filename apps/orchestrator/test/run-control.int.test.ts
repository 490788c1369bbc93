import { describe, expect, it } from "vitest";
import type { TraceEvent } from "@rein/contracts/run";
import { until } from "@rein/contracts/testing";
import { isTerminal } from "@rein/contracts/run";
import { ApprovalStore } from "@rein/runtime";
import type { ModelScriptInput } from "@rein/models";
import { decideApproval } from "../src/approvals/decide-approval.ts";
import { cliEnv, rein } from "./support/cli.ts";
import type { Harness } from "./support/harness.ts";
import { harnessesPerTest } from "./support/harnesses-per-test.ts";
import { probeTool } from "./support/probe-run.ts";
import { countingSwitchTool } from "./support/switch-tool.ts";

const probe = probeTool();
const flipSwitch = countingSwitchTool().tool;

const step = (title: string, objective: string, tools: string[], extra: Record<string, unknown> = {}) => ({
  current_step: {
    title,
    objective,
    tools,
    output_contract: { description: "one line", format: "text" },
    budget: { maxTurns: 4, maxToolCalls: 6 },
    ...extra,
  },
  next_steps: [],
  risks: [],
  done: false,
});
const finished = {
  current_step: null,
  done: true,
  answer: {
    answer: "the probe reports pending",
    claims: [{ text: "the probe reports pending", evidence: ["{{evidence:probe}}"] }],
    gaps: [],
  },
};

const kinds = (events: TraceEvent[]) => events.map((event) => event.kind);
const statusesOf = (events: TraceEvent[]) =>
  events.filter((event) => event.kind === "run.status_changed").map((event) => String(event.payload.to));

const harnesses = harnessesPerTest();

describe("run control through the controller", () => {
  it("a worker repeating one call gets retry 'change strategy', then escalate; a reply resumes it through the planner, and changed args are no loop", async () => {
    const script: ModelScriptInput = {
      planner: [
        { match: "Completed steps: 2", turns: [{ output: finished }] },
        {
          match: "Instruction from a person: probe each key once",
          turns: [{ output: step("Probe each key once", "Read the status of keys a, b and c with probe, one call each.", ["probe"]) }],
        },
        {
          match: "Completed steps: none",
          turns: [{ output: step("Poll the status", "Read the status value with probe until it changes.", ["probe"]) }],
        },
      ],
      worker: [
        {
          match: "Probe each key once",
          turns: [
            { toolCalls: [{ name: "probe", input: { key: "a" } }] },
            { toolCalls: [{ name: "probe", input: { key: "b" } }] },
            { toolCalls: [{ name: "probe", input: { key: "c" } }] },
            { text: "a, b and c are pending" },
          ],
        },
        { match: "Poll the status", repeatLast: true, turns: [{ toolCalls: [{ name: "probe", input: {} }] }] },
      ],
    };
    const harness = await harnesses.start(script, [probe]);
    const runId = await harness.submit({
      text: "Find out whether the status changes",
      tools: [{ name: "probe" }],
      budget: { maxSteps: 5, maxTokens: 100_000 },
    });
    const escalated = await harness.waitFor(runId, (state) => state.status === "escalated");
    expect(escalated.verdicts.map((verdict) => verdict.decision)).toEqual(["retry", "escalate"]);
    expect(escalated.verdicts[0]?.feedback).toMatch(/^change strategy:/);
    expect(escalated.verdicts[1]?.reasons[0]).toMatch(/repeated loop \(no_progress\)/);
    expect(escalated.spent.steps).toBeLessThanOrEqual(escalated.goal.budget.maxSteps);
    expect(escalated.spent.tokens).toBeLessThanOrEqual(escalated.goal.budget.maxTokens);

    // What `rein reply` sends.
    await harness.runtime.queues.sendControl({
      type: "run.resume",
      eventId: `resume-${runId}-1`,
      runId,
      instruction: "probe each key once",
    });
    const done = await harness.waitFor(runId);
    expect(done.status, done.stopReason).toBe("done");
    const events = await harness.runtime.trace.read(runId);
    expect(events.filter((event) => event.kind === "loop.detected" && event.stepId === "s2")).toHaveLength(0);
    expect(statusesOf(events)).toEqual(expect.arrayContaining(["dispatching", "executing", "evaluating", "escalated", "planning", "done"]));
    const replanned = harness.planner.requests.find((request) => JSON.stringify(request.messages).includes("probe each key once"));
    expect(JSON.stringify(replanned?.messages)).toContain("Latest verdict: escalate");
    const lesson = events.find((event) => event.kind === "lesson.recorded");
    expect(lesson?.payload.kind).toBe("resolved_escalation");
  });

  it("rein cancel ends a run waiting for approval as cancelled, with a partial result; a late approval changes nothing", async () => {
    const script: ModelScriptInput = {
      planner: [
        {
          match: "Completed steps: none",
          turns: [{ output: step("Flip the switch on", "Turn the main switch on with flip_switch.", ["flip_switch"]) }],
        },
      ],
      worker: [
        {
          match: "Flip the switch on",
          turns: [{ toolCalls: [{ name: "flip_switch", input: { position: "on" } }] }, { text: "switched on" }],
        },
      ],
    };
    const harness = await harnesses.start(script, [flipSwitch]);
    const runId = await harness.submit({ text: "Turn the main switch on", tools: [{ name: "flip_switch" }] });
    const waiting = await harness.waitFor(
      runId,
      (state) => state.status === "waiting_approval" || state.status === "failed" || state.status === "done",
    );
    expect(waiting.status, waiting.stopReason).toBe("waiting_approval");
    const [approvalId] = waiting.pendingApprovals;
    await harness.runtime.queues.sendControl({ type: "run.cancel", eventId: `cancel-${runId}`, runId, reason: "cancelled by the test" });
    const cancelled = await harness.waitFor(runId);
    expect(cancelled.status).toBe("cancelled");
    expect(cancelled.result?.partial).toBe(true);
    expect(cancelled.result?.missing.join(" ")).toContain('step s1 "Flip the switch on" did not complete');

    await harness.runtime.queues.sendControl({
      type: "approval.decided",
      eventId: `approval-${approvalId}`,
      runId,
      approvalId: approvalId as string,
      decision: "approved",
    });
    const ignored = await waitForEvent(
      harness,
      runId,
      (event) => event.kind === "event.ignored" && event.payload.event === "approval.decided",
    );
    expect(ignored.payload.reason).toBe("run is already cancelled");
    expect(kinds(await harness.runtime.trace.read(runId))).not.toContain("tool.executed");

    // Nor is the approval left for a person to grant: the run's end expired it.
    const approvals = new ApprovalStore(harness.runtime.redis, harness.runtime.keys, { ttlSeconds: 3600 });
    await until("the cancelled run's approval expires", async () => (await approvals.get(approvalId as string))?.status === "expired");
    expect(await approvals.list({ status: "pending" })).toEqual([]);
    const status = await rein(["status", runId], cliEnv({ REIN_PREFIX: harness.runtime.config.prefix }));
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).not.toContain("waiting for approval");
  });

  it("an approved call counts once against its step's tool-call budget, not once when it asks and again when it runs", async () => {
    const counted = countingSwitchTool();
    const script: ModelScriptInput = {
      planner: [
        {
          match: "Completed steps: none",
          turns: [
            {
              output: step("Flip the switch on", "Turn the main switch on with flip_switch.", ["flip_switch"], {
                budget: { maxToolCalls: 1 },
              }),
            },
          ],
        },
        {
          match: "Completed steps: 1",
          turns: [
            {
              output: {
                current_step: null,
                done: true,
                answer: { answer: "switched on", claims: [{ text: "the switch is on", evidence: ["{{evidence:flip_switch}}"] }], gaps: [] },
              },
            },
          ],
        },
      ],
      worker: [
        {
          match: "Flip the switch on",
          turns: [{ toolCalls: [{ name: "flip_switch", input: { position: "on" } }] }, { text: "switched on" }],
        },
      ],
    };
    const harness = await harnesses.start(script, [counted.tool]);
    const runId = await harness.submit({ text: "Turn the main switch on", tools: [{ name: "flip_switch" }] });
    const waiting = await harness.waitFor(runId, (state) => state.status === "waiting_approval" || isTerminal(state.status));
    expect(waiting.status, waiting.stopReason).toBe("waiting_approval");
    await decideApproval(harness.runtime, harness.desk, waiting.pendingApprovals[0] as string, {
      decision: "approved",
      approver: "test:oncall",
    });
    const ended = await harness.waitFor(runId);
    expect(ended.status, ended.stopReason).toBe("done");
    expect(counted.flips()).toBe(1);
    expect(kinds(await harness.runtime.trace.read(runId))).not.toContain("tool.budget_exhausted");
  });

  it("a run whose step budget is spent fails before dispatching more, with what is missing and a run_failed lesson", async () => {
    const script: ModelScriptInput = {
      planner: [
        { match: "Completed steps: 1", turns: [{ output: step("Probe again", "Read the status value once more with probe.", ["probe"]) }] },
        {
          match: "Completed steps: none",
          turns: [{ output: { ...step("Probe once", "Read the status value with probe.", ["probe"]), next_steps: ["Probe again"] } }],
        },
      ],
      worker: [{ match: "Probe once", turns: [{ toolCalls: [{ name: "probe", input: {} }] }, { text: "status: pending" }] }],
    };
    const harness = await harnesses.start(script, [probe]);
    const runId = await harness.submit({ text: "Read the status twice", tools: [{ name: "probe" }], budget: { maxSteps: 1 } });
    const failed = await harness.waitFor(runId);
    expect(failed.status).toBe("failed");
    expect(failed.stopReason).toBe("step budget spent: 1 of 1 steps");
    expect(failed.result).toMatchObject({ partial: true });
    expect(failed.steps.map((candidate) => candidate.stepId)).toEqual(["s1"]);
    expect(failed.planCount).toBe(1);
    const events = await harness.runtime.trace.read(runId);
    expect(events.filter((event) => event.kind === "step.dispatched")).toHaveLength(1);
    expect(events.find((event) => event.kind === "lesson.recorded")?.payload.kind).toBe("run_failed");
  });
});

/** The first trace event that matches, following the trace until one appears. */
async function waitForEvent(harness: Harness, runId: string, matches: (event: TraceEvent) => boolean): Promise<TraceEvent> {
  const controller = new AbortController();
  try {
    for await (const event of harness.runtime.trace.follow(runId, controller.signal, 200)) if (matches(event)) return event;
    throw new Error("the trace ended without a matching event");
  } finally {
    controller.abort();
  }
}
