import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PolicyRule, StepSpec, type ToolGrant } from "@rein/contracts";
import type { StepEvaluateJob } from "@rein/contracts/messages";
import { Workspace } from "@rein/tools";
import { testRuntimePerTest } from "@rein/runtime/testing";
import { type EvaluatorDeps, evaluate } from "../src/evaluate.ts";
import { completedStepResult, evaluatorDepsOf } from "./support/evaluate-fixtures.ts";

// Acceptance checks are planner-written argv: a hostile planner tries the same doors as a hostile worker.

const RUN = "run_checks";
const nodeGrant: ToolGrant = { name: "run_command", scope: { commands: ["node"] } };

function job(argv: string[], extra: Partial<StepEvaluateJob> = {}): StepEvaluateJob {
  const spec = StepSpec.parse({
    title: "Fix the bug",
    objective: "Fix add() in src/add.js so the tests pass.",
    tools: ["run_command"],
    acceptance_criteria: [{ kind: "command", description: "the check passes", argv, expectExitCode: 0 }],
  });
  return {
    kind: "step",
    runId: RUN,
    stepId: "s1",
    attempt: 1,
    spec,
    result: completedStepResult(RUN, "s1", "fixed"),
    knownEvidenceIds: [],
    evidence: [],
    priorFingerprints: [],
    priorFailedFingerprints: [],
    goal: "Fix the bug",
    risks: [],
    checkGrant: nodeGrant,
    policy: [],
    ...extra,
  };
}

describe("acceptance command checks run through the executor and the sandbox (issue 10 item 2)", () => {
  // A check is decided by the command it runs, as run_command is (issue 28): this deployment allows node without a person.
  const allowNode = { id: "deploy:allow-node", tool: "run_command", decision: "allow" as const, commands: ["node"] };
  const fixture = testRuntimePerTest({ beforeEach, afterEach }, { tools: { commands: ["node", "git"] }, policy: [allowNode] });
  let workspace: Workspace;
  let deps: EvaluatorDeps;
  beforeEach(async () => {
    deps = await evaluatorDepsOf(fixture.runtime, RUN);
    workspace = deps.workspace;
  });

  const kinds = async () => (await fixture.runtime.trace.read(RUN)).map((event) => event.kind);

  it("a check that writes outside the workspace, or into it, fails instead of passing", async () => {
    const marker = join(fixture.runtime.config.workspaceRoot, `escaped-${Date.now()}`);
    const script = `const fs = require("node:fs"); fs.writeFileSync(${JSON.stringify(marker)}, "x"); fs.writeFileSync("in-workspace.txt", "x");`;
    const { verdict } = await evaluate(job(["node", "-e", script]), deps);
    expect(verdict.checks.find((check) => check.check === "the check passes")?.passed).toBe(false);
    expect(existsSync(marker)).toBe(false);
    expect(existsSync(join(workspace.root, "in-workspace.txt"))).toBe(false);
    const executed = (await fixture.runtime.trace.read(RUN)).find((event) => event.kind === "check.tool.executed");
    expect(executed?.payload.sandbox).toBe("bubblewrap");
    const finished = (await fixture.runtime.trace.read(RUN)).find((event) => event.kind === "check.command_finished");
    expect(finished?.payload).toMatchObject({ sandbox: "bubblewrap", killedBy: null });
  });

  it("a check that reads host files or another run's workspace fails", async () => {
    const other = await Workspace.forRun(fixture.runtime.config.workspaceRoot, "run_other");
    await writeFile(join(other.root, "secret.txt"), "private");
    const script = `const fs = require("node:fs"); for (const p of ["/etc/shadow", ${JSON.stringify(join(other.root, "secret.txt"))}, "/proc/1/root/etc/hostname"]) { try { fs.readFileSync(p); process.exit(0); } catch {} } process.exit(3);`;
    const { verdict } = await evaluate(job(["node", "-e", script]), deps);
    expect(verdict.checks[0]?.passed).toBe(false);
    expect(verdict.checks[0]?.detail).toContain("exited 3");
  });

  it("a check that connects to Redis cannot", async () => {
    const script = `const s = require("node:net").connect(6379, "127.0.0.1", () => process.exit(0)); s.on("error", () => process.exit(4));`;
    const { verdict } = await evaluate(job(["node", "-e", script]), deps);
    expect(verdict.checks[0]?.detail).toContain("exited 4");
  });

  it("a check outside the goal's run_command scope is refused, not run, and sends the plan back", async () => {
    const { verdict } = await evaluate(job(["git", "status"]), deps);
    expect(verdict.decision).toBe("replan");
    expect(verdict.reasons.join("\n")).toContain("check cannot run as written");
    expect(await kinds()).toContain("check.tool.refused");
    expect(await kinds()).not.toContain("check.tool.executed");
  });

  it("a check when the goal grants no run_command is refused", async () => {
    const { verdict } = await evaluate(job(["node", "-e", "process.exit(0)"], { checkGrant: undefined }), deps);
    expect(verdict.decision).toBe("replan");
    expect(await kinds()).not.toContain("check.tool.executed");
  });

  it("a check the policy would ask a person about is not run: unrunnable, never silently run", async () => {
    const ask = PolicyRule.parse({ id: "ask-node", tool: "run_command", commands: ["node"], decision: "ask" });
    const { verdict } = await evaluate(job(["node", "-e", "process.exit(0)"], { policy: [ask] }), deps);
    expect(verdict.decision).toBe("replan");
    expect(verdict.reasons.join("\n")).toContain("approval");
    expect(await kinds()).toContain("check.approval.unavailable");
    expect(await kinds()).not.toContain("check.tool.executed");
  });

  it("a passing check passes, reading the workspace it may not change", async () => {
    await writeFile(join(workspace.root, "ok.txt"), "ok");
    const { verdict } = await evaluate(
      job(["node", "-e", `process.exit(require("node:fs").readFileSync("ok.txt", "utf8") === "ok" ? 0 : 1)`]),
      deps,
    );
    expect(verdict.checks[0]?.passed).toBe(true);
  });
});
