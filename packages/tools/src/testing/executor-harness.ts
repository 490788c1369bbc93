import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PolicyRule, ToolGrant } from "@rein/contracts";
import type { TraceEventInput, TraceKind } from "@rein/trace";
import { createToolExecutor, type ToolExecutorDeps } from "../create-tool-executor.ts";
import type { AnyTool, ArtifactWriter } from "../define-tool.ts";
import type { ModelToolCall, StepExecutionContext } from "../tool-executor.ts";
import type { RepeatSafeRule } from "../executor/repeat-safe.ts";
import { ToolRegistry } from "../tool-registry.ts";
import { Workspace } from "../workspace.ts";

/** An in-memory trace sink: the executor writes through the same interface TraceLog has. */
export class MemoryTrace {
  readonly events: TraceEventInput[] = [];
  async append(input: TraceEventInput): Promise<void> {
    this.events.push(input);
  }
  kinds(): string[] {
    return this.events.map((event) => event.kind);
  }
  ofKind<Kind extends TraceKind>(kind: Kind): Extract<TraceEventInput, { kind: Kind }>[] {
    return this.events.filter((event): event is Extract<TraceEventInput, { kind: Kind }> => event.kind === kind);
  }
}

export class MemoryArtifacts implements ArtifactWriter {
  readonly items = new Map<string, string>();
  async put(_runId: string, content: string): Promise<string> {
    const id = `art_${this.items.size + 1}`;
    this.items.set(id, content);
    return id;
  }
}

export async function tempWorkspace(): Promise<{ workspace: Workspace; dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "rein-tools-"));
  const workspace = await Workspace.open(join(dir, "ws"));
  return { workspace, dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

export function call(name: string, input: unknown, extra: Partial<ModelToolCall> = {}): ModelToolCall {
  return { type: "tool_call", id: `call_${name}_${Math.random().toString(36).slice(2, 8)}`, name, input, ...extra };
}

export interface HarnessOptions {
  tools: AnyTool[];
  surface: ToolGrant[];
  workspace: Workspace;
  policy?: PolicyRule[];
  packetPolicy?: PolicyRule[];
  limits?: { maxBytes: number; maxLines: number };
  /** Config `tools.repeatSafe`. */
  repeatSafe?: RepeatSafeRule[];
  deps?: Partial<ToolExecutorDeps>;
  runId?: string;
  stepId?: string;
}

export function harness(options: HarnessOptions) {
  const trace = new MemoryTrace();
  const artifacts = new MemoryArtifacts();
  const executor = createToolExecutor({
    registry: new ToolRegistry(options.tools),
    trace,
    artifacts,
    config: {
      policy: options.policy ?? [],
      observations: options.limits ?? { maxBytes: 16_384, maxLines: 200 },
      tools: { repeatSafe: options.repeatSafe ?? [] },
    },
    ...options.deps,
  });
  const context = (overrides: Partial<StepExecutionContext> = {}): StepExecutionContext => ({
    runId: options.runId ?? "run_test",
    stepId: options.stepId ?? "step_test",
    attempt: 1,
    parentStepId: null,
    surface: options.surface,
    policy: options.packetPolicy ?? [],
    workspace: options.workspace,
    signal: new AbortController().signal,
    budget: { maxToolCalls: 30, deadline: Date.now() + 60_000 },
    callsSoFar: 0,
    ...overrides,
  });
  let index = 0;
  const run = (toolCall: ModelToolCall, overrides: Partial<StepExecutionContext> = {}) =>
    executor.execute(toolCall, index++, context(overrides));
  return { executor, trace, artifacts, context, run };
}
