import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunState, TraceEvent } from "@rein/contracts/run";
import { textOf } from "@rein/models";
import { renderTask, WORKER_SYSTEM } from "@rein/workers";
import { bugfixExample, type Harness, startHarness } from "./support/harness.ts";

describe("examples/bugfix through a real Redis, each role its own consumer", () => {
  let harness: Harness;
  let state: RunState;
  let trace: TraceEvent[];
  let goalText: string;

  beforeAll(async () => {
    const { example, script } = await bugfixExample();
    goalText = example.goal.text;
    harness = await startHarness(script, [], { config: example.config });
    const runId = await harness.submit(example.goal, { workspaceDir: example.seedDir });
    state = await harness.waitFor(runId);
    trace = await harness.runtime.trace.read(runId);
  });

  afterAll(async () => {
    await harness?.close();
  });

  it("ends done with the planner's answer only through the evaluator's verdict over it", () => {
    expect(state.status).toBe("done");
    expect(state.stopReason).toBe("the evaluator verified the answer");
    expect(state.result?.partial).toBe(false);
    expect(state.result?.answer?.answer).toMatch(/a \+ b/);
    expect(state.steps).toHaveLength(1);
    expect(state.steps[0]?.decision).toBe("continue");
    const kinds = trace.map((event) => event.kind);
    const finalVerdict = trace.findLast((event) => event.kind === "verdict.ready");
    expect(finalVerdict?.payload.subject).toBe("final_answer");
    expect(finalVerdict?.payload.decision).toBe("done");
    expect(kinds.indexOf("answer.proposed")).toBeLessThan(kinds.lastIndexOf("verdict.ready"));
    expect(kinds.lastIndexOf("verdict.ready")).toBeLessThan(kinds.indexOf("run.done"));
    expect(JSON.stringify(trace)).not.toContain("the planner found the goal met");
  });

  it("delivers claims that each cite evidence present in the trace, every one verified", () => {
    const observed = new Set(
      trace.filter((event) => event.kind === "observation.made").map((event) => String(event.payload.observationId)),
    );
    const claims = state.result?.answer?.claims ?? [];
    expect(claims.length).toBeGreaterThan(0);
    for (const claim of claims) {
      expect(claim.evidence.length).toBeGreaterThan(0);
      for (const id of claim.evidence)
        expect(observed.has(id), `${id} (cited by "${claim.text}") is an observation in the trace`).toBe(true);
    }
    expect(state.result?.claims.map((claim) => claim.status)).toEqual(claims.map(() => "supported"));
  });

  it("fixed the copy in the run's workspace and left the example untouched", async () => {
    const fixed = await readFile(join(harness.runtime.config.workspaceRoot, state.runId, "src/add.js"), "utf8");
    expect(fixed).toMatch(/return a \+ b;/);
    const { example } = await bugfixExample();
    const original = await readFile(join(example.seedDir as string, "src/add.js"), "utf8");
    expect(original).toMatch(/return a - b;/);
  });

  it("records the trace in causal order", () => {
    const kinds = trace.map((event) => event.kind);
    const first = (kind: string) => kinds.indexOf(kind);
    expect(trace.map((event) => event.seq)).toEqual(trace.map((_, index) => index + 1));
    const order = ["run.submitted", "plan.ready", "step.dispatched", "tool.called", "step.finished", "verdict.ready", "run.done"];
    const positions = order.map(first);
    expect(
      positions.every((position) => position >= 0),
      JSON.stringify(kinds),
    ).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(kinds.filter((kind) => kind.startsWith("run.") && kind !== "run.status_changed").at(-1)).toBe("run.done");
  });

  it("gives every event runId, seq, kind, ts, and hashes where it has an input or output", () => {
    for (const event of trace) {
      expect(event.runId).toBe(state.runId);
      expect(event.ts).toMatch(/^\d{4}-\d\d-\d\dT/);
    }
    const withIo = trace.filter((event) =>
      ["model.called", "model.responded", "tool.called", "tool.result", "observation.made"].includes(event.kind),
    );
    expect(withIo.length).toBeGreaterThan(5);
    for (const event of withIo) expect(event.inputHash).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it("showed the worker the failing test run, then the passing one", () => {
    expect(trace.filter((event) => event.kind === "observation.made" && event.stepId === "s1")).toHaveLength(7);
    const last = harness.worker.requests.at(-1);
    const outputs = (last?.messages ?? []).flatMap((message) =>
      message.content.flatMap((block) => (block.type === "tool_result" ? [block.content] : [])),
    );
    const exitCodes = outputs.flatMap((text) => /^exit code: (\d+)$/m.exec(text)?.[1] ?? []);
    expect(exitCodes).toEqual(["1", "0"]);
  });

  it("let the evaluator run the tests itself", () => {
    const verdict = trace.find((event) => event.kind === "verdict.ready");
    const checks = verdict?.payload.checks as { check: string; passed: boolean; detail: string }[];
    expect(checks.find((check) => check.check.includes("node --test"))).toMatchObject({
      passed: true,
      detail: expect.stringMatching(/exited 0/),
    });
  });

  it("built the worker's model requests from the packet alone", () => {
    const dispatched = trace.find((event) => event.kind === "step.dispatched");
    expect(dispatched).toBeDefined();
    expect(harness.worker.requests.length).toBeGreaterThan(0);
    for (const request of harness.worker.requests) {
      expect(request.role).toBe("worker");
      expect(request.system).toBe(WORKER_SYSTEM);
      const [first, ...rest] = request.messages;
      expect(first?.role).toBe("user");
      const taskText = textOf(first?.content ?? []);
      expect(taskText).toContain("Task: Fix add() so the tests pass");
      // The goal's own wording never reaches the worker; only the step's task does.
      expect(JSON.stringify(request)).not.toContain(goalText);
      expect(JSON.stringify(request)).not.toContain("Confirm the whole suite passes");
      // After the task, only this step's own model turns and tool results.
      for (const message of rest) {
        for (const block of message.content) {
          if (message.role === "assistant") expect(["text", "tool_call"]).toContain(block.type);
          else expect(block.type).toBe("tool_result");
        }
      }
      // The packet's surface, plus the two requests the runtime itself answers.
      expect(request.tools?.map((tool) => tool.name).sort()).toEqual([
        "delegate",
        "list_files",
        "read_file",
        "request_context",
        "run_command",
        "write_file",
      ]);
    }
  });

  it("renders the task exactly from the packet body", () => {
    const firstRequest = harness.worker.requests[0];
    const body = {
      schemaVersion: 1 as const,
      runId: state.runId,
      stepId: "s1",
      attempt: 1,
      parentStepId: null,
      depth: 0,
      task: {
        title: state.steps[0]?.spec.title ?? "",
        objective: state.steps[0]?.spec.objective ?? "",
        acceptanceCriteria: state.steps[0]?.spec.acceptance_criteria ?? [],
        outputContract: state.steps[0]?.spec.output_contract ?? { description: "", format: "text" as const },
      },
      evidence: [],
      lessons: [],
      surface: [],
      policy: [],
      budget: { maxTurns: 10, maxToolCalls: 12, maxTokens: 200_000, maxMs: 300_000 },
      modelRole: "worker" as const,
      bounds: { surface: [], budget: { maxTurns: 10, maxToolCalls: 12, maxTokens: 200_000, maxMs: 300_000 } },
      issuedAt: "",
      expiresAt: "",
    };
    expect(textOf(firstRequest?.messages[0]?.content ?? [])).toBe(renderTask(body));
  });
});
