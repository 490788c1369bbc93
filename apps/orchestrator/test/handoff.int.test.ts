import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { GoalInput } from "@rein/contracts";
import type { TraceEvent } from "@rein/contracts/run";
import { type ModelRequest, type ModelScriptInput, textOf } from "@rein/models";
import { findTraceEvent } from "@rein/trace";
import { decideApproval } from "../src/approvals/decide-approval.ts";
import type { Harness } from "./support/harness.ts";
import { harnessesPerTest } from "./support/harnesses-per-test.ts";
import { countingRestartTool } from "./support/restart-tool.ts";

const harnesses = harnessesPerTest();

const step = (title: string, objective: string, tools: string[], extra: Record<string, unknown> = {}) => ({
  current_step: { title, objective, tools, output_contract: { description: "a short summary", format: "text" }, ...extra },
  next_steps: [],
  risks: [],
  done: false,
});
const done = {
  current_step: null,
  done: true,
  answer: { answer: "finished", claims: [{ text: "the notes were read", evidence: ["{{evidence:read_file}}"] }], gaps: [] },
};

async function seededGoal(h: Harness, goal: GoalInput): Promise<string> {
  const seed = join(h.runtime.config.workspaceRoot, "seed");
  await mkdir(join(seed, "notes"), { recursive: true });
  await writeFile(join(seed, "notes/a.txt"), "alpha: the pool is saturated\n");
  await writeFile(join(seed, "notes/b.txt"), "beta: second note\n");
  return h.submit(goal, { workspaceDir: seed });
}

const requestsFor = (requests: ModelRequest[], taskTitle: string) =>
  requests.filter((request) => textOf(request.messages[0]?.content ?? []).includes(`Task: ${taskTitle}`));

const kinds = (trace: TraceEvent[]) => trace.map((event) => event.kind);

describe("delegation", () => {
  const script = (childTools: unknown[]): ModelScriptInput => ({
    planner: [
      {
        match: "Completed steps: none",
        turns: [{ output: step("Survey the notes", "Find out what notes/a.txt says by delegating the read", ["read_file", "list_files"]) }],
      },
      { match: "Completed steps: 1", turns: [{ output: done }] },
    ],
    worker: [
      {
        match: "Task: Survey the notes",
        turns: [
          {
            toolCalls: [
              {
                name: "delegate",
                input: {
                  reason: "reading is a separate job",
                  task: {
                    title: "Read note a",
                    objective: "Read notes/a.txt and report its first line",
                    tools: childTools,
                    budget: { maxTurns: 3 },
                  },
                },
              },
            ],
          },
          { text: "The child reported the note." },
        ],
      },
      {
        match: "Task: Read note a",
        turns: [{ toolCalls: [{ name: "read_file", input: { path: "notes/a.txt" } }] }, { text: "first line: alpha" }],
      },
    ],
  });

  it("runs a narrower child step whose result comes back to the parent as one observation", async () => {
    const harness = await harnesses.start(script([{ name: "read_file", scope: { paths: ["notes/**"] } }]));
    const runId = await seededGoal(harness, { text: "Tell me what the notes say", tools: [{ name: "read_file" }, { name: "list_files" }] });
    const state = await harness.waitFor(runId);
    expect(state.status).toBe("done");
    const trace = await harness.runtime.trace.read(runId);

    const delegated = trace.find((event) => event.kind === "step.delegated");
    expect(delegated).toMatchObject({
      stepId: "s1",
      payload: { childStepId: "s1.1", reason: "reading is a separate job", tools: ["read_file"], depth: 1 },
    });
    expect(delegated?.payload.scopes).toEqual({ read_file: { paths: ["notes/**"] } });
    const childDispatch = findTraceEvent(trace, "step.dispatched", (event) => event.stepId === "s1.1");
    expect(childDispatch?.parentStepId).toBe("s1");
    expect(childDispatch?.payload.packetHash).toMatch(/^sha256:/);
    expect(kinds(trace)).toContain("step.returned");
    // The evaluator judged the child (rules and loop detection) before its result reached the parent.
    const childVerdict = trace.findIndex((event) => event.kind === "verdict.ready" && event.stepId === "s1.1");
    expect(childVerdict).toBeGreaterThan(-1);
    expect(trace.findIndex((event) => event.kind === "fingerprints.recorded" && event.stepId === "s1.1")).toBeGreaterThan(-1);
    expect(childVerdict).toBeLessThan(trace.findIndex((event) => event.kind === "step.returned"));

    // The child saw only its own packet: not the goal, not its parent's task.
    const childRequests = requestsFor(harness.worker.requests, "Read note a");
    expect(childRequests.length).toBe(2);
    for (const request of childRequests) {
      const seen = JSON.stringify(request);
      expect(seen).not.toContain("Tell me what the notes say");
      expect(seen).not.toContain("Survey the notes");
      expect(request.tools?.map((tool) => tool.name).sort()).toEqual(["delegate", "read_file", "request_context"]);
    }

    // The parent resumed from its checkpoint: two model calls in all, the second answering the delegate call.
    const parentRequests = requestsFor(harness.worker.requests, "Survey the notes");
    expect(parentRequests).toHaveLength(2);
    const results = parentRequests[1]?.messages.flatMap((message) => message.content).filter((block) => block.type === "tool_result");
    expect(results).toHaveLength(1);
    expect(results?.[0]).toMatchObject({
      content: expect.stringMatching(
        /child step s1\.1 ended completed\.[\s\S]*<<<untrusted-data ([a-p]{16})>>>\nfirst line: alpha[\s\S]*<<<end-untrusted-data \1>>>$/,
      ),
    });
    expect(kinds(trace)).toContain("step.checkpoint_restored");
  });

  it("refuses a child that would widen the surface, and tells the parent why", async () => {
    const harness = await harnesses.start(script([{ name: "write_file", scope: {} }]));
    const runId = await seededGoal(harness, {
      text: "Tell me what the notes say",
      tools: [{ name: "read_file" }, { name: "list_files" }, { name: "write_file" }],
    });
    await harness.waitFor(runId, (state) => ["done", "failed", "escalated"].includes(state.status));
    const trace = await harness.runtime.trace.read(runId);
    const refused = trace.find((event) => event.kind === "delegation.refused");
    expect(refused?.payload.reason).toMatch(/attenuation broken: surface: tool write_file is not on the parent's surface/);
    expect(trace.some((event) => event.stepId === "s1.1" && event.kind === "step.dispatched")).toBe(false);
    const parentRequests = requestsFor(harness.worker.requests, "Survey the notes");
    const answer = parentRequests[1]?.messages.flatMap((message) => message.content).find((block) => block.type === "tool_result");
    expect(answer).toMatchObject({ content: expect.stringMatching(/delegation refused by the runtime/) });
  });
});

describe("request_context", () => {
  const script = (answer: unknown): ModelScriptInput => ({
    planner: [
      { match: "Completed steps: none", turns: [{ output: step("Read the notes", "Read notes/a.txt with read_file", ["read_file"]) }] },
      {
        match: "Completed steps: 1",
        turns: [{ output: step("Write the summary", "Write summary.txt from what the notes said", ["write_file"]) }],
      },
      { match: "Completed steps: 2", turns: [{ output: done }] },
      { match: "Context request from step s2", turns: [{ output: answer }] },
    ],
    worker: [
      {
        match: "Task: Read the notes",
        turns: [{ toolCalls: [{ name: "read_file", input: { path: "notes/a.txt" } }] }, { text: "read it" }],
      },
      {
        match: "Task: Write the summary",
        turns: [
          { toolCalls: [{ name: "request_context", input: { question: "what did the notes say?" } }] },
          { toolCalls: [{ name: "write_file", input: { path: "summary.txt", content: "the pool is saturated" } }] },
          { text: "summary written" },
        ],
      },
    ],
  });

  it("lets the planner decide what to pass, and the step resumes with it", async () => {
    const harness = await harnesses.start(script({ evidence_ids: ["{{evidence:read_file}}"] }));
    const runId = await seededGoal(harness, { text: "Summarize the notes", tools: [{ name: "read_file" }, { name: "write_file" }] });
    const state = await harness.waitFor(runId);
    expect(state.status).toBe("done");
    const trace = await harness.runtime.trace.read(runId);
    const readObservation = state.evidence.find((entry) => entry.tool === "read_file")?.id as string;
    const answered = trace.find((event) => event.kind === "context.answered");
    expect(answered?.payload).toMatchObject({ evidence: [readObservation], requestingStepId: "s2" });

    const writer = requestsFor(harness.worker.requests, "Write the summary");
    expect(JSON.stringify(writer[0])).not.toContain(readObservation);
    const passed = writer[1]?.messages.flatMap((message) => message.content).find((block) => block.type === "tool_result");
    expect(passed).toMatchObject({
      content: expect.stringMatching(
        new RegExp(
          `${readObservation}: <<<untrusted-data ([a-p]{16})>>>read_file: alpha: the pool is saturated<<<end-untrusted-data \\1>>>`,
        ),
      ),
    });
  });

  it("records a refusal with both step ids, and the worker is told", async () => {
    const harness = await harnesses.start(script({ refusal: "the summary step must not see raw notes" }));
    const runId = await seededGoal(harness, { text: "Summarize the notes", tools: [{ name: "read_file" }, { name: "write_file" }] });
    await harness.waitFor(runId);
    const trace = await harness.runtime.trace.read(runId);
    const refused = trace.find((event) => event.kind === "context.refused");
    expect(refused).toMatchObject({
      stepId: "s2",
      payload: { requestingStepId: "s2", parentStepId: null, refusal: "the summary step must not see raw notes" },
    });
    const writer = requestsFor(harness.worker.requests, "Write the summary");
    const told = writer[1]?.messages.flatMap((message) => message.content).find((block) => block.type === "tool_result");
    expect(told).toMatchObject({
      content: expect.stringMatching(
        /^\[observation obs_\w+\]\nthe planner refused\.\n[^\n]*\n<<<untrusted-data ([a-p]{16})>>>\nthe summary step must not see raw notes\n<<<end-untrusted-data \1>>>$/,
      ),
    });
  });
});

describe("a context request the planner cannot answer", () => {
  it("resumes the step with the failure as a refusal, and counts what the tries spent, instead of leaving it waiting", async () => {
    const harness = await harnesses.start({
      planner: [
        {
          match: "Completed steps: none",
          turns: [{ output: step("Write the summary", "Write summary.txt from what the notes said", ["write_file"]) }],
        },
        {
          match: "Completed steps: 1",
          turns: [
            {
              output: {
                current_step: null,
                done: true,
                answer: {
                  answer: "summary written",
                  claims: [{ text: "summary.txt was written", evidence: ["{{evidence:write_file}}"] }],
                  gaps: [],
                },
              },
            },
          ],
        },
        // Neither evidence nor a refusal, every time: the answer never validates.
        { match: "Context request from step s1", repeatLast: true, turns: [{ output: { evidence_ids: [] } }] },
      ],
      worker: [
        {
          match: "Task: Write the summary",
          turns: [
            { toolCalls: [{ name: "request_context", input: { question: "what did the notes say?" } }] },
            { toolCalls: [{ name: "write_file", input: { path: "summary.txt", content: "no notes were passed" } }] },
            { text: "summary written without the notes" },
          ],
        },
      ],
    });
    const runId = await seededGoal(harness, { text: "Summarize the notes", tools: [{ name: "read_file" }, { name: "write_file" }] });
    const state = await harness.waitFor(runId);
    expect(state.status, state.stopReason).toBe("done");
    const trace = await harness.runtime.trace.read(runId);
    const refused = trace.find((event) => event.kind === "context.refused");
    expect(refused?.payload.refusal).toMatch(/the planner could not answer: .*pass at least one evidence id, or refuse/);
    const spentOnContext = trace.filter((event) => event.kind === "usage.counted" && event.payload.source === "context.answered");
    expect(spentOnContext).toHaveLength(1);
  });
});

describe("approval resume", () => {
  const restart = countingRestartTool();
  const script: ModelScriptInput = {
    planner: [
      {
        match: "Completed steps: none",
        turns: [
          {
            output: step("Restart the api", "Check the notes, then restart payment-api with restart_service", [
              "read_file",
              "restart_service",
            ]),
          },
        ],
      },
      { match: "Completed steps: 1", turns: [{ output: done }] },
    ],
    worker: [
      {
        match: "Task: Restart the api",
        turns: [
          { toolCalls: [{ name: "read_file", input: { path: "notes/a.txt" } }] },
          { toolCalls: [{ name: "restart_service", input: { service: "payment-api" } }] },
          { text: "handled" },
        ],
      },
    ],
  };

  it("continues from the checkpoint after approval and runs the approved action once", async () => {
    restart.reset();
    const harness = await harnesses.start(script, [restart.tool]);
    const runId = await seededGoal(harness, { text: "Fix payment-api", tools: [{ name: "read_file" }, { name: "restart_service" }] });
    const waiting = await harness.waitFor(runId, (state) => state.status === "waiting_approval");
    const approvalId = waiting.pendingApprovals[0] as string;
    expect(restart.restarts()).toBe(0);
    await decideApproval(harness.runtime, harness.desk, approvalId, { decision: "approved", approver: "test:oncall" });
    const state = await harness.waitFor(runId);
    expect(state.status).toBe("done");
    expect(restart.restarts()).toBe(1);
    // Three model calls in all: the resumed step did not start over.
    expect(requestsFor(harness.worker.requests, "Restart the api")).toHaveLength(3);
    const trace = await harness.runtime.trace.read(runId);
    expect(trace.filter((event) => event.kind === "tool.called" && event.payload.tool === "read_file")).toHaveLength(1);
    // Decided in time: its expiry no longer waits in the control queue to be ignored a day later.
    expect(await harness.runtime.queues.control.getJob(`control-approval-expiry-${approvalId}`)).toBeUndefined();
  });

  it("tells the model why a denied action did not run", async () => {
    restart.reset();
    const harness = await harnesses.start(script, [restart.tool]);
    const runId = await seededGoal(harness, { text: "Fix payment-api", tools: [{ name: "read_file" }, { name: "restart_service" }] });
    const waiting = await harness.waitFor(runId, (state) => state.status === "waiting_approval");
    await decideApproval(harness.runtime, harness.desk, waiting.pendingApprovals[0] as string, {
      decision: "denied",
      approver: "test:oncall",
      reason: "not during business hours",
    });
    await harness.waitFor(runId);
    expect(restart.restarts()).toBe(0);
    const last = requestsFor(harness.worker.requests, "Restart the api").at(-1);
    const told = last?.messages
      .flatMap((message) => message.content)
      .filter((block) => block.type === "tool_result")
      .at(-1);
    expect(told).toMatchObject({ content: expect.stringContaining("not during business hours") });
  });
});
