import { z } from "zod";
import { type Sha256, sha256 } from "@rein/contracts";
import type { CallIntent } from "@rein/contracts/calls";
import { createLogger, SecretBindings } from "@rein/guard";
import { type AnyTool, defineTool, type ToolOptions } from "../define-tool.ts";
import type { CallInProgress } from "../executor/call-in-progress.ts";
import { CallTrace } from "../executor/call-trace.ts";
import type { ResolvedExecutorDeps } from "../tool-executor-deps.ts";
import type { ModelToolCall, StepExecutionContext } from "../tool-executor.ts";
import { ToolRegistry } from "../tool-registry.ts";
import type { Workspace } from "../workspace.ts";
import { MemoryArtifacts, MemoryTrace } from "./executor-harness.ts";

/** The fingerprint of every call the harness builds. */
export const FINGERPRINT = sha256("fingerprint");

/** A write tool that counts its runs and echoes its input. */
export function noteTool(overrides: Partial<ToolOptions<{ text: string }, unknown>> = {}): { tool: AnyTool; runs: string[] } {
  const runs: string[] = [];
  const tool = defineTool({
    name: "note",
    description: "Append a note.",
    effect: "write",
    input: z.object({ text: z.string() }),
    run: async (args) => {
      runs.push(args.text);
      return `noted ${args.text}`;
    },
    ...overrides,
  });
  return { tool, runs };
}

export interface StageOptions {
  tools?: AnyTool[];
  call?: Partial<ModelToolCall>;
  context?: Partial<StepExecutionContext>;
  deps?: Partial<ResolvedExecutorDeps>;
  workspace?: Workspace;
  /** Fields earlier stages would have set. */
  state?: Partial<CallInProgress>;
}

/** A call part-way through the pipeline, for testing one stage on its own. */
export function callInProgress(options: StageOptions = {}) {
  const tools = options.tools ?? [noteTool().tool];
  const trace = new MemoryTrace();
  const artifacts = new MemoryArtifacts();
  const deps: ResolvedExecutorDeps = {
    registry: new ToolRegistry(tools),
    trace,
    artifacts,
    config: { policy: [], observations: { maxBytes: 1000, maxLines: 20 } },
    secrets: SecretBindings.none(),
    logger: createLogger({ level: "silent" }),
    now: () => Date.parse("2026-12-01T00:00:00.000Z"),
    ...options.deps,
  };
  const call: ModelToolCall = { type: "tool_call", id: "call_1", name: tools[0]?.name ?? "note", input: { text: "hi" }, ...options.call };
  const context: StepExecutionContext = {
    runId: "run_s",
    stepId: "step_s",
    attempt: 1,
    parentStepId: null,
    surface: tools.map((tool) => ({ name: tool.name, scope: {} })),
    policy: [],
    workspace: options.workspace as Workspace,
    signal: new AbortController().signal,
    budget: { maxToolCalls: 10, deadline: Date.parse("2026-12-02T00:00:00.000Z") },
    callsSoFar: 0,
    ...options.context,
  };
  const identity = { callId: call.id, tool: call.name, index: 0, argsHash: sha256("args"), fingerprint: FINGERPRINT };
  const state: CallInProgress = {
    deps,
    call,
    context,
    identity,
    trace: new CallTrace(trace, { runId: context.runId, stepId: context.stepId, parentStepId: null, ...identity }),
    idempotencyKey: `${context.runId}:${context.stepId}:${context.attempt}:0`,
    ...options.state,
  };
  return { state, trace, artifacts, deps };
}

/** An intent as a run of the call `note {"text":"hi"}` would have left it. */
export const intentOf = (fingerprint: Sha256, repeatable = false): CallIntent => ({
  schemaVersion: 1,
  kind: "intent",
  fingerprint,
  actionHash: sha256("action"),
  tool: "note",
  args: { text: "hi" },
  repeatable,
  startedAt: "2026-11-30T00:00:00.000Z",
  token: "t1",
});
