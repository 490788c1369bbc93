import { type HandoffPacket, type PacketBody, ReinError, zeroUsage } from "@rein/contracts";
import type { ModelToolSchema } from "@rein/contracts/model";
import type { StepCheckpoint } from "@rein/contracts/calls";
import type { Redactor } from "@rein/guard";
import type { ModelProvider, ModelStreamEvent, Price } from "@rein/models";
import { type CheckpointCounts, type CheckpointStore, TraceBuffer, type TraceLog } from "@rein/runtime";
import type { CallWatch, StepReadCache, ToolExecutor, Workspace } from "@rein/tools";
import { PromptChain } from "@rein/trace";
import { runtimeToolSchemas } from "../runtime-tools.ts";
import { renderTask } from "../worker-prompt.ts";

export interface StepLoopDeps {
  provider: ModelProvider;
  executor: ToolExecutor;
  trace: TraceLog;
  /**
   * The run's workspace, or its opening: a run's first step opens it (a mkdir
   * and a realpath, two trips to libuv's thread pool) while it claims the
   * step and makes its first model call, and waits for it only at its first
   * tool call; a step that calls no tool never waits for it.
   */
  workspace: Workspace | Promise<Workspace>;
  /** Where the loop is saved after every turn and when it suspends. */
  checkpoints: CheckpointStore;
  /** The deepest a delegation chain may go; at the limit the worker is not offered `delegate`. */
  maxDepth: number;
  price?: Price;
  /** Output tokens one call may take (`roleMaxTokens`); each call reserves at most this. */
  maxTokensPerCall: number;
  /** The worker role's `contextTokens`: each call's prompt is fitted to it, oldest tool results dropped first. */
  contextTokens?: number;
  /** Removes secrets from outside text the packet hands over (evidence, lessons, a child's summary). */
  redactor?: Redactor;
  /** Text deltas as the model streams them, for live progress. */
  onModelEvent?: (event: ModelStreamEvent) => void;
  /** Hears of each tool call while it runs, before the turn's write makes it durable (the run's live channel). */
  callWatch?: CallWatch;
  /**
   * The queue job's token: the step is claimed with it before its checkpoint
   * is read, and every write of the step lands only while the claim is still
   * this token's, so a worker whose job another took over stops at the next
   * turn boundary having written nothing more. Absent outside a queue (replay).
   */
  ownerToken?: string;
  /** Whether the lock is still believed held (no Redis round trip); checked before each model call and tool call. */
  lockHeld?: () => boolean;
  now?: () => number;
}

/** The loop's saved state: what a checkpoint holds, less its envelope. */
export type Loop = Omit<StepCheckpoint, "schemaVersion" | "savedAt">;

/** One attempt of one step as the stages share it. */
export interface StepContext {
  body: PacketBody;
  deps: StepLoopDeps;
  now: () => number;
  deadline: number;
  tools: ModelToolSchema[];
  /** Awaited by the first tool call (see StepLoopDeps.workspace); a failure to open it fails that call's turn. */
  workspace: Promise<Workspace>;
  /** A turn's trace events, written with its checkpoint in one round trip. */
  trace: TraceBuffer;
  /** The step's view of its run's read cache, whose new entries go with the turn's write; absent without a cache. */
  cache?: StepReadCache;
  /** Links each model call's prompt copy to the one before it, so a call records only its new messages. */
  prompts: PromptChain;
  loop: Loop;
  /** What the last write of this attempt saved, so the next writes only what is new; absent: written whole. */
  saved?: CheckpointCounts;
  /** The turn write in flight (startTurnWrite), until the step waits for it (settleTurnWrite). */
  writing?: Promise<void>;
  /** Whether this worker has set the step's key TTLs yet (once per step, not per item). */
  ttlSet: boolean;
  /** The model's final text, once it answered without calls. */
  finalText?: string;
  /** What the step is waiting on now, so a cancel can say in the trace what it cut off. */
  inFlight?: { kind: "model_call" } | { kind: "tool_call"; tool: string };
}

/**
 * The step's context, built from the packet alone: no goal text beyond the
 * task, no other step's observations. Restored from this attempt's
 * checkpoint when there is one, so a suspended step, or one whose worker
 * died, continues instead of starting over.
 */
export async function openStep(packet: HandoffPacket, deps: StepLoopDeps): Promise<StepContext> {
  const { body } = packet;
  // Awaited at the first tool call, if any; handled from here on, so an opening that already failed is not an unhandled rejection meanwhile.
  const workspace = Promise.resolve(deps.workspace);
  workspace.catch(() => undefined);
  const now = deps.now ?? Date.now;
  // Claimed first: whatever an earlier owner writes after this is refused, so what is loaded next is final.
  // Sent together, not one after the other: on the one connection Redis runs the claim before the read
  // (every key of a step is in its run's slot, so on Redis Cluster too), and the step starts a round trip sooner.
  // What the run's read cache holds comes in the same round trip.
  const claimed = deps.ownerToken === undefined ? undefined : deps.checkpoints.claim(body.runId, body.stepId, deps.ownerToken);
  const [, saved, cache] = await Promise.all([
    claimed,
    deps.checkpoints.load(body.runId, body.stepId, body.attempt),
    deps.executor.openReadCache?.(body.runId),
  ]);
  const step: StepContext = {
    body,
    deps,
    now,
    deadline: now() + body.budget.maxMs,
    tools: [...deps.executor.schemasFor(body.surface), ...runtimeToolSchemas({ canDelegate: body.depth < deps.maxDepth })],
    workspace,
    trace: new TraceBuffer(deps.trace, body.runId),
    cache,
    prompts: new PromptChain(),
    loop: saved ?? {
      runId: body.runId,
      stepId: body.stepId,
      attempt: body.attempt,
      messages: [{ role: "user", content: [{ type: "text", text: renderTask(body, { redactor: deps.redactor }) }] }],
      observations: [],
      records: [],
      usage: zeroUsage(),
      turns: 0,
    },
    saved: saved ? { messages: saved.messages.length, observations: saved.observations.length, records: saved.records.length } : undefined,
    ttlSet: false,
  };
  const withheld = saved ? [] : deps.executor.unavailable(body.surface);
  if (withheld.length > 0) {
    await step.trace.append({
      runId: body.runId,
      stepId: body.stepId,
      parentStepId: body.parentStepId,
      kind: "step.tools_withheld",
      payload: { tools: withheld },
    });
  }
  const intake = saved ? [] : deps.executor.schemaIntake(body.surface);
  if (intake.length > 0) {
    await step.trace.append({
      runId: body.runId,
      stepId: body.stepId,
      parentStepId: body.parentStepId,
      kind: "step.tool_schemas",
      payload: { tools: intake },
    });
  }
  if (saved) {
    await step.trace.append({
      runId: body.runId,
      stepId: body.stepId,
      parentStepId: body.parentStepId,
      kind: "step.checkpoint_restored",
      payload: {
        turns: saved.turns,
        calls: saved.records.length,
        pending: saved.pending?.calls.length ?? 0,
        resume: body.resume?.kind ?? null,
      },
    });
  }
  return step;
}

/**
 * Throws when the step must start nothing more: its run ended (`run_ended`,
 * the signal's reason) or it is being given back on shutdown.
 */
export function assertNotStopped(step: StepContext, signal: AbortSignal, what: string): void {
  if (!signal.aborted) return;
  if (ReinError.hasCode(signal.reason, "run_ended")) throw signal.reason;
  throw new ReinError("tool_failed", `the step was given back before ${what} of step ${step.body.stepId}`, { retryable: true });
}

/** Throws `lock_lost` when the job's lock is known to be gone: nothing more of the step may run. */
export function assertLockHeld(step: StepContext): void {
  if (step.deps.lockHeld && !step.deps.lockHeld()) {
    throw new ReinError(
      "lock_lost",
      `the job of step ${step.body.stepId} is no longer this worker's (its lock could not be renewed); it stops before doing more`,
    );
  }
}
