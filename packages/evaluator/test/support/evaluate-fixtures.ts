import { type StepResult, zeroUsage } from "@rein/contracts";
import { Workspace } from "@rein/tools";
import type { TestRuntime } from "@rein/runtime/testing";
import { commandCheckRunner } from "../../src/command-check.ts";
import type { EvaluatorDeps } from "../../src/evaluate.ts";

/** What evaluate() works with for `runId` on a test runtime: its trace, the run's workspace, and command checks through the executor. */
export async function evaluatorDepsOf(runtime: TestRuntime, runId: string): Promise<EvaluatorDeps> {
  return {
    trace: runtime.trace,
    workspace: await Workspace.forRun(runtime.config.workspaceRoot, runId),
    checks: commandCheckRunner({ trace: runtime.trace, artifacts: runtime.artifacts, config: runtime.config }),
  };
}

/** A first attempt that completed in one turn with `summary` as its output, no tool calls and nothing spent; `more` overrides any field. */
export function completedStepResult(runId: string, stepId: string, summary: string, more: Partial<StepResult> = {}): StepResult {
  return {
    schemaVersion: 1,
    runId,
    stepId,
    attempt: 1,
    status: "completed",
    output: summary,
    summary,
    claims: [],
    observations: [],
    toolCalls: [],
    fingerprints: [],
    usage: zeroUsage(),
    turns: 1,
    ...more,
  };
}
