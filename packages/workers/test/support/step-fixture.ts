import {
  ArtifactStore,
  CheckpointStore,
  createToolExecutor,
  type HandoffPacket,
  type ModelScriptInput,
  PacketBody,
  ScriptedProvider,
  ToolRegistry,
  Workspace,
} from "@rein/core";
import { createTestRuntime, echoConversation, echoTool, type TestRuntime } from "@rein/core/testing";
import type { StepLoopDeps } from "../../src/step-loop.ts";

/** A worker conversation of `calls` turns that each call echo with a new number, then a final text. */
export function echoScript(title: string, calls: number): ModelScriptInput {
  return { worker: [echoConversation(title, calls)] };
}

/** A step's packet (unsigned: the loop trusts what the consumer verified). */
export function packetOf(runId: string, title: string, budget: { maxTurns?: number; maxToolCalls?: number } = {}): HandoffPacket {
  const limits = { maxTurns: budget.maxTurns ?? 500, maxToolCalls: budget.maxToolCalls ?? 500, maxTokens: 100_000_000, maxMs: 600_000 };
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

export interface StepFixture {
  runtime: TestRuntime;
  cleanup(): Promise<void>;
  deps(script: ModelScriptInput, runId: string, extra?: Partial<StepLoopDeps>): Promise<StepLoopDeps>;
}

/** A test runtime on the real Redis, with an executor over the echo tool. */
export async function openStepFixture(): Promise<StepFixture> {
  const runtime = await createTestRuntime();
  const executor = createToolExecutor({
    registry: new ToolRegistry([echoTool]),
    trace: runtime.trace,
    artifacts: new ArtifactStore(runtime.redis, runtime.keys),
    config: runtime.config,
  });
  return {
    runtime,
    cleanup: () => runtime.cleanup(),
    deps: async (script, runId, extra = {}) => ({
      provider: new ScriptedProvider(script),
      executor,
      trace: runtime.trace,
      workspace: await Workspace.forRun(runtime.config.workspaceRoot, runId),
      checkpoints: new CheckpointStore(runtime.redis, runtime.keys),
      maxDepth: 3,
      ...extra,
    }),
  };
}
