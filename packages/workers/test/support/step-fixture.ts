import { z } from "zod";
import {
  ArtifactStore,
  CheckpointStore,
  createToolExecutor,
  defineTool,
  type HandoffPacket,
  type ModelScriptInput,
  PacketBody,
  ScriptedProvider,
  ToolRegistry,
  Workspace,
} from "@rein/core";
import { createTestRuntime, type TestRuntime } from "@rein/core/testing";
import type { StepLoopDeps } from "../../src/step-loop.ts";

/** A read tool that answers at once: the loop's own cost is what a test of it sees. */
export const echoTool = defineTool({
  name: "echo",
  description: "Returns its input number.",
  effect: "read",
  input: z.object({ i: z.number().int() }),
  run: async ({ i }) => `echo ${i}`,
});

/** A worker conversation of `calls` turns that each call echo with a new number, then a final text. */
export function echoScript(title: string, calls: number): ModelScriptInput {
  return {
    worker: [
      {
        match: title,
        turns: [...Array.from({ length: calls }, (_, index) => ({ toolCalls: [{ name: echoTool.name, input: { i: index } }] })), { text: "Echoed every number." }],
      },
    ],
  };
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
