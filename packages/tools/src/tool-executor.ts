import type { PolicyRule, ToolCallRecord, ToolGrant } from "@rein/contracts";
import type { ContentBlock, ModelToolSchema } from "@rein/contracts/model";
import type { Observation, ToolResultEvent } from "@rein/contracts/calls";
import type { SchemaIntake } from "./define-tool.ts";
import type { TraceSink } from "./executor/call-trace.ts";
import type { CallWatch } from "./executor/call-watch.ts";
import type { RunReadCache, StepReadCache } from "./ports/read-cache.ts";
import type { Workspace } from "./workspace.ts";

export type ModelToolCall = Extract<ContentBlock, { type: "tool_call" }>;

/** What the executor needs to know about the step a call belongs to. */
export interface StepExecutionContext {
  runId: string;
  stepId: string;
  /** The step's attempt (from its packet): a retry's effects are new, a crash re-run's are replays. */
  attempt: number;
  parentStepId: string | null;
  surface: readonly ToolGrant[];
  /** The goal's own rules, checked before the deployment's. */
  policy: readonly PolicyRule[];
  workspace: Workspace;
  signal: AbortSignal;
  budget: {
    maxToolCalls: number;
    /** Epoch ms after which no new call may start. */
    deadline: number;
  };
  /** Calls already made in this step (the budget check counts them). */
  callsSoFar: number;
  /**
   * The step owner's token (its job's token): the call's intent and outcome
   * records land only while it still owns the step, so a worker whose job
   * was taken over starts no effect (`lock_lost`). Absent outside a queue.
   */
  ownerToken?: string;
  /** Where this call's trace events go; defaults to the executor's own trace. */
  trace?: TraceSink;
  /** The step's view of its run's read cache (ToolExecutor.openReadCache); defaults to the executor's shared cache. */
  cache?: RunReadCache;
  /** Hears of each call the tool runs while it runs, before its events are durable (a worker's live channel). */
  watch?: CallWatch;
}

export interface ToolCallOutcome {
  observation: Observation;
  record: ToolCallRecord;
  result: ToolResultEvent;
  /** Set when the call needs a person's approval: the step must suspend. */
  suspend?: { kind: "approval"; approvalId: string; tool: string };
}

/**
 * Runs one model-proposed tool call through the whole pipeline of
 * ARCHITECTURE §5 and returns what the model sees next.
 */
export interface ToolExecutor {
  /** The JSON schemas of exactly the tools on this surface. */
  schemasFor(surface: readonly ToolGrant[]): ModelToolSchema[];
  /** The granted tools that are not offered (withheld by their source, or not registered here), and why. */
  unavailable(surface: readonly ToolGrant[]): Array<{ tool: string; reason: string }>;
  /** The granted outside tools whose schema was relisted (`list_changed`) or had text the presenter rewrote, for the step's trace. */
  schemaIntake(surface: readonly ToolGrant[]): Array<{ tool: string } & SchemaIntake>;
  execute(call: ModelToolCall, index: number, context: StepExecutionContext): Promise<ToolCallOutcome>;
  /** A step's view of the run's read cache, whose entries the step writes with its turns; undefined without a cache. */
  openReadCache?(runId: string): Promise<StepReadCache | undefined>;
}
