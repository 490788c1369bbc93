import { afterEach, beforeEach } from "vitest";
import { type HandoffPacket, PacketBody, type PolicyRule } from "@rein/contracts";
import { type ModelScriptInput, ScriptedProvider } from "@rein/models";
import { ArtifactStore, IdempotencyStore, ToolResultCache } from "@rein/runtime";
import { type AnyTool, createToolExecutor, type ToolExecutor, ToolRegistry, Workspace } from "@rein/tools";
import { createTestRuntime, echoConversation, type TestRuntime } from "@rein/runtime/testing";
import { echoTool } from "@rein/tools/testing";
import type { StepLoopDeps } from "../../src/step-loop.ts";

/** A worker conversation of `calls` turns that each call echo with a new number, then a final text. */
export function echoScript(title: string, calls: number): ModelScriptInput {
  return { worker: [echoConversation(title, calls)] };
}

/** A step's packet (unsigned: the loop trusts what the consumer verified). */
export function packetOf(
  runId: string,
  title: string,
  budget: { maxTurns?: number; maxToolCalls?: number; maxTokens?: number; maxCostUsd?: number } = {},
): HandoffPacket {
  const limits = {
    maxTurns: budget.maxTurns ?? 500,
    maxToolCalls: budget.maxToolCalls ?? 500,
    maxTokens: budget.maxTokens ?? 100_000_000,
    maxMs: 600_000,
    ...(budget.maxCostUsd !== undefined ? { maxCostUsd: budget.maxCostUsd } : {}),
  };
  const surface = [{ name: echoTool.name, scope: {} }];
  const now = new Date();
  const body = PacketBody.parse({
    schemaVersion: 1,
    runId,
    stepId: "step_1",
    attempt: 1,
    parentStepId: null,
    depth: 0,
    task: { title, objective: `${title}.`, acceptanceCriteria: [], outputContract: { format: "text", description: "a line" } },
    evidence: [],
    lessons: [],
    surface,
    budget: limits,
    modelRole: "worker",
    bounds: { surface, budget: limits },
    issuedAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + 3_600_000).toISOString(),
  });
  return { body, contextHash: `sha256:${"0".repeat(64)}`, signature: "unsigned" };
}

export interface ExecutorOptions {
  /** The deployment's permission rules in place of the config's. */
  policy?: PolicyRule[];
  /** Records each effect's intent and outcome, as a deployment's executor does. */
  recordEffects?: boolean;
  /** Keeps the run's read cache, as a deployment's executor does. */
  readCache?: boolean;
  /** Config `tools.repeatSafe`: calls a crash may cut off and the next worker runs again. */
  repeatSafe?: { tool: string; command?: string }[];
}

export interface StepFixture {
  runtime: TestRuntime;
  cleanup(): Promise<void>;
  /** Loop deps playing `script`, with an executor over the echo tool unless `extra` names another. */
  deps(script: ModelScriptInput, runId: string, extra?: Partial<StepLoopDeps>): Promise<StepLoopDeps>;
  /** An executor over `tools` on this runtime. */
  executor(tools: AnyTool[], options?: ExecutorOptions): ToolExecutor;
}

/** A test runtime on the real Redis, with an executor over the echo tool. */
export async function openStepFixture(): Promise<StepFixture> {
  const runtime = await createTestRuntime();
  const executor = (tools: AnyTool[], options: ExecutorOptions = {}): ToolExecutor =>
    createToolExecutor({
      registry: new ToolRegistry(tools),
      trace: runtime.trace,
      artifacts: new ArtifactStore(runtime.redis, runtime.keys),
      config: {
        ...runtime.config,
        ...(options.policy ? { policy: options.policy } : {}),
        ...(options.repeatSafe ? { tools: { ...runtime.config.tools, repeatSafe: options.repeatSafe } } : {}),
      },
      ...(options.recordEffects ? { idempotency: new IdempotencyStore(runtime.redis, runtime.keys) } : {}),
      ...(options.readCache ? { cache: new ToolResultCache(runtime.redis, runtime.keys) } : {}),
    });
  const echoExecutor = executor([echoTool]);
  return {
    runtime,
    cleanup: () => runtime.cleanup(),
    executor,
    deps: async (script, runId, extra = {}) => ({
      provider: new ScriptedProvider(script),
      executor: echoExecutor,
      trace: runtime.trace,
      workspace: await Workspace.forRun(runtime.config.workspaceRoot, runId),
      checkpoints: runtime.checkpoints,
      maxTokensPerCall: 4096,
      maxDepth: 3,
      ...extra,
    }),
  };
}

/**
 * A fresh fixture for each test of the file that calls this at its top
 * level: opened before each test, cleaned up after it (after the file's own
 * afterEach hooks, which run first).
 */
export function stepFixturePerTest(): StepFixture {
  let current: StepFixture | undefined;
  beforeEach(async () => {
    current = await openStepFixture();
  });
  afterEach(async () => {
    await current?.cleanup();
    current = undefined;
  });
  const open = (): StepFixture => {
    if (!current) throw new Error("the step fixture is open only while a test runs");
    return current;
  };
  return {
    get runtime() {
      return open().runtime;
    },
    cleanup: () => open().cleanup(),
    deps: (script, runId, extra) => open().deps(script, runId, extra),
    executor: (tools, options) => open().executor(tools, options),
  };
}
