import { existsSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { EXAMPLES_DIR } from "../../src/examples/load-example.ts";
import { buildRunView } from "../../src/trace/views/run-view/build-run-view.ts";
import type { RunView } from "../../src/trace/views/run-view/run-view-model.ts";
import { exampleRecordedOnce } from "./record-example.ts";

describe("the run view of examples/bugfix (a failing test run, a fix, a passing one)", () => {
  const recorded = exampleRecordedOnce("bugfix");
  let view: RunView;
  beforeAll(() => {
    view = buildRunView(recorded.bundle);
  });

  it("reads every event through the catalogue", () => {
    expect(view.unreadable).toEqual([]);
    expect(view.status).toBe("done");
    expect(view.goal).toBe(recorded.example.goal.text);
  });

  it("shows the failing test run as exit 1 with its output, not ok, and the passing one as ok", () => {
    const runs = view.calls.filter((call) => call.tool === "run_command");
    expect(runs.map((call) => [call.status, call.exitCode, call.failed])).toEqual([
      ["exit 1", 1, true],
      ["ok", 0, false],
    ]);
    const [failing] = runs;
    expect(failing?.input).toEqual({ command: "node", args: ["--test"] });
    expect(failing?.output).toMatch(/^exit code: 1/);
    expect(failing?.permission).toMatchObject({ decision: "allow" });
    expect(failing?.permission?.rule).not.toBe("");
    // The model's next prompt holds the result: what it saw, not only what the tool returned.
    expect(failing?.presented).toContain("exit code: 1");
    expect(failing?.durationMs).toBeGreaterThanOrEqual(0);
    const line = view.timeline.find((entry) => entry.callKey === failing?.key);
    expect(line).toMatchObject({ label: `#${failing?.index} run_command → exit 1`, failed: true });
  });

  it("draws the step with its attempt, its calls in order and its verdict", () => {
    expect(view.graph.steps).toHaveLength(1);
    const [step] = view.graph.steps;
    expect(step?.title).toBe("Fix add() so the tests pass");
    expect(step?.attempts).toHaveLength(1);
    expect(step?.attempts[0]).toMatchObject({ attempt: 1, status: "completed", verdict: "continue" });
    expect(step?.attempts[0]?.callKeys).toEqual(view.calls.filter((call) => call.stepId === step?.stepId).map((call) => call.key));
    expect(step?.attempts[0]?.durationMs).toBeGreaterThanOrEqual(0);
  });

  it("keeps the plan as it evolved: the first plan with its risks, then the plan that declares the goal met", () => {
    expect(view.plan.revisions.map((plan) => [plan.planNo, plan.done, plan.trigger])).toEqual([
      [1, false, "first"],
      [2, true, "after_step"],
    ]);
    expect(view.plan.revisions[0]).toMatchObject({
      currentStep: "Fix add() so the tests pass",
      nextSteps: ["Confirm the whole suite passes"],
      risks: ["the test itself could be wrong; do not edit tests"],
    });
    expect(view.plan.revisions[1]?.reason).toMatch(/^continue on /);
    expect(view.plan.current?.planNo).toBe(2);
  });

  it("gives verdicts with their reasons and checks, the final answer's included", () => {
    const stepVerdict = view.verdicts.find((verdict) => verdict.subject === "step");
    expect(stepVerdict?.checks.map((check) => check.passed)).not.toContain(false);
    expect(stepVerdict?.checks.length).toBeGreaterThan(0);
    expect(view.verdicts.find((verdict) => verdict.subject === "final_answer")).toMatchObject({ decision: "done" });
  });

  it("totals tokens and cost per step and per role, matching the run's own count, against its budget", () => {
    const state = recorded.bundle.state;
    expect(view.usage.total.inputTokens + view.usage.total.outputTokens).toBe(state?.spent.tokens);
    expect(view.usage.budget).toEqual(state?.goal.budget);
    expect(view.usage.byRole.map((line) => line.name).sort()).toEqual(expect.arrayContaining(["planner", "worker"]));
    const [step] = view.graph.steps;
    expect(view.usage.byStep.find((line) => line.name === step?.stepId)?.usage).toEqual(step?.usage);
    expect(step?.usage.inputTokens).toBeGreaterThan(0);
  });

  it("links each claim of the answer to the call whose observation backs it", () => {
    expect(view.answer?.text).toMatch(/returns a \+ b/);
    expect(view.answer?.gaps).toEqual([]);
    const claim = view.answer?.claims.find((each) => each.text.startsWith("`node --test` exits 0"));
    expect(claim?.status).toBe("supported");
    const [evidence] = claim?.evidence ?? [];
    const call = view.calls.find((each) => each.key === evidence?.callKey);
    expect(call).toMatchObject({ tool: "run_command", status: "ok", observationId: evidence?.id });
  });
});

// sre-triage is being built alongside; it is checked the moment it exists.
describe.runIf(existsSync(join(EXAMPLES_DIR, "sre-triage", "goal.json")))("the run view of examples/sre-triage (an approval)", () => {
  const recorded = exampleRecordedOnce("sre-triage");

  it("shows the call that asked for approval with its rule, who approved it, and the timeline's wait", () => {
    const view = buildRunView(recorded.bundle);
    expect(view.unreadable).toEqual([]);
    const [asked, approved] = view.calls.filter((call) => call.permission?.decision === "ask");
    expect(asked).toMatchObject({ status: "pending_approval", failed: false, permission: { rule: "default:destructive" } });
    expect(asked?.approval).toMatch(/^requested apr_/);
    // The step resumes after the approval and the model's call runs again, using the approval up.
    expect(approved).toMatchObject({ tool: asked?.tool, status: "ok", failed: false });
    expect(approved?.approval).toMatch(/approved by test:approver$/);
    expect(view.timeline.some((entry) => entry.kind === "step.suspended" && entry.label.startsWith("waiting for approval"))).toBe(true);
  });
});
