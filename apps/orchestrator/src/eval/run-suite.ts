import { join } from "node:path";
import { type ModelProvider, ReplayProvider } from "@rein/models";
import type { ReinConfig, ReinConfigInput } from "@rein/runtime";
import type { AnyTool } from "@rein/tools";
import { scriptedOverrides } from "../cli/run-command.ts";
import { loadExample } from "../examples/load-example.ts";
import { runPrivately } from "../replay/in-process-run.ts";
import { observationIdTranslator } from "../replay/observation-ids.ts";
import { openIsolatedRuntime } from "../replay/isolated-runtime.ts";
import { readExport } from "../trace/trace-files.ts";
import { type CheckOutcome, checkCase } from "./case-checks.ts";
import type { EvalCase, EvalSuite } from "./eval-suite.ts";

export interface CaseResult {
  name: string;
  passed: boolean;
  status: string;
  steps: number;
  tokens: number;
  costUsd: number;
  checks: CheckOutcome[];
  /** Set when the case could not run to an end at all. */
  error?: string;
}

export interface SuiteResult {
  suite: string;
  cases: CaseResult[];
  passRate: number;
  totals: { steps: number; tokens: number; costUsd: number };
}

export interface RunSuiteOptions {
  /** Tools that replace the built-ins' or examples' of the same name (to gate a tool change). */
  toolOverrides?: readonly AnyTool[];
  /** Called after each case, for progress output. */
  onCase?: (result: CaseResult) => void;
}

/** Runs each case on its own scratch prefix and workspace, one after another, and scores it. */
export async function runSuite(config: ReinConfig, suite: EvalSuite, options: RunSuiteOptions = {}): Promise<SuiteResult> {
  const cases: CaseResult[] = [];
  for (const item of suite.cases) {
    const result = await runCase(config, item, options.toolOverrides ?? []);
    options.onCase?.(result);
    cases.push(result);
  }
  const sum = (pick: (result: CaseResult) => number) => cases.reduce((total, result) => total + pick(result), 0);
  return {
    suite: suite.name,
    cases,
    passRate: cases.filter((result) => result.passed).length / cases.length,
    totals: { steps: sum((result) => result.steps), tokens: sum((result) => result.tokens), costUsd: sum((result) => result.costUsd) },
  };
}

async function runCase(config: ReinConfig, item: EvalCase, toolOverrides: readonly AnyTool[]): Promise<CaseResult> {
  const example = await loadExample(item.example);
  const overrides: ReinConfigInput = item.model === "scripted" ? scriptedOverrides(example) : example.config;
  const scratch = await openIsolatedRuntime(config, "eval", overrides);
  try {
    let providers: Partial<Record<"planner" | "worker" | "judge", ModelProvider>> | undefined;
    let runId: string | undefined;
    if (typeof item.model === "object") {
      // Under the recorded run id, with the ids it cites translated, as `rein replay` does.
      const recording = await readExport(item.model.recording);
      runId = recording.runId;
      const model = ReplayProvider.fromTrace(recording.events, { translate: observationIdTranslator(recording.events, scratch, runId) });
      providers = { planner: model, worker: model, judge: model };
    }
    const approver = `eval:${item.name}`;
    const { state, events } = await runPrivately(scratch, {
      goal: { ...example.goal, ...(item.goal ?? {}) },
      workspaceDir: example.seedDir,
      tools: [...example.tools, ...toolOverrides],
      providers,
      runId,
      decideApproval:
        item.approvals === "none" ? undefined : () => ({ decision: item.approvals === "approve" ? "approved" : "denied", approver }),
    });
    const checks = await checkCase(item.expect, { state, events, workspace: join(scratch.config.workspaceRoot, state.runId) });
    return {
      name: item.name,
      passed: checks.every((check) => check.passed),
      status: state.status,
      steps: state.spent.steps,
      tokens: state.spent.tokens,
      costUsd: state.spent.costUsd,
      checks,
    };
  } catch (error) {
    // A case that cannot run (bad recording, timeout, invalid goal) fails alone; the rest of the suite still runs.
    const message = error instanceof Error ? error.message : String(error);
    return { name: item.name, passed: false, status: "error", steps: 0, tokens: 0, costUsd: 0, checks: [], error: message };
  } finally {
    await scratch.discard();
  }
}
