import { canonicalJson, errorMessage } from "@rein/contracts";
import { type EntryScreen, entryScreen, type SecretRefusal } from "@rein/guard";
import { prepareUntrusted } from "@rein/presenter";
import type { AnyTool, ToolContext, ToolProgress } from "../../define-tool.ts";
import type { ResolvedExecutorDeps } from "../../tool-executor-deps.ts";
import { type CallInProgress, type CallStage, need } from "../call-in-progress.ts";
import { interrupted } from "../interrupted.ts";
import { recordOwner } from "../recorded-calls.ts";
import { ProgressTrace } from "../progress-trace.ts";
import { type RunResult, runTool } from "../run-tool.ts";
import { safeJson, TRACE_ARGS_LIMIT } from "../safe-json.ts";

// The error as the result event and the logs state it: already redacted, cut for brevity.
export const ERROR_MESSAGE_CHARS = 500;

/**
 * The call's result: replayed from an earlier run of this same call, served
 * from the run's read cache, or the tool run now (timeout, abort, transient
 * retry). A secret the tool may not have is a refusal, not a failure; a call
 * cut off by the step being given back is neither (see `interrupted`).
 */
export const runCall: CallStage = async (state) => {
  const tool = need(state, "tool");
  const { deps, context, trace, idempotencyKey } = state;
  const { recorded } = state;
  if (recorded?.kind === "failure") {
    await trace.emit("tool.replayed", { idempotencyKey, observedAt: recorded.observedAt, status: recorded.status });
    const { status, error, failure, attempts } = recorded;
    state.execution = { kind: "failed", status, error, failure, attempts, replayed: true, durationMs: 0 };
    return undefined;
  }
  if (recorded) {
    await trace.emit("tool.replayed", { idempotencyKey, observedAt: recorded.observedAt }, { outputHash: recorded.rawOutputHash });
    state.execution = { kind: "result", result: recorded, source: "replayed", attempts: 1, durationMs: 0 };
    return undefined;
  }
  if (isCacheable(tool, deps)) {
    const cached = await (context.cache ?? deps.cache)?.get(context.runId, state.identity.fingerprint);
    if (cached) {
      await trace.emit("tool.cache_hit", { observedAt: cached.observedAt }, { outputHash: cached.rawOutputHash });
      state.execution = { kind: "result", result: cached, source: "cache", attempts: 1, durationMs: 0 };
      return undefined;
    }
  }

  const secretRefusals: SecretRefusal[] = [];
  const secrets = deps.secrets.readerFor(tool.name, (refusal) => secretRefusals.push(refusal));
  const watched = { callId: state.call.id, tool: tool.name, index: state.identity.index };
  const { watch } = context;
  const startedAt = deps.now();
  watch?.started({ ...watched, startedAt: new Date(startedAt).toISOString(), args: watchedArgs(state) });
  const progress = new ProgressTrace(
    trace,
    deps.now,
    (error) => deps.logger.warn({ tool: tool.name, error: errorMessage(error) }, "tracing a call's progress failed"),
    watch
      ? ({ progress: done, total, message }) => watch.progress(watched, watchedProgress(state, { progress: done, total, message }))
      : undefined,
  );
  let run: RunResult | undefined;
  try {
    run = await runTool(tool, need(state, "input").args, (signal) => toolContext(state, signal, secrets, progress.report), {
      signal: context.signal,
      retry: deps.retry,
    });
  } finally {
    await progress.end();
    watch?.finished({ ...watched, status: watchedStatus(run, context.signal), durationMs: run?.durationMs ?? deps.now() - startedAt });
  }
  const { durationMs, attempts } = run;
  if (!run.ok && context.signal.aborted) throw await interrupted(state);
  for (const refusal of secretRefusals) await trace.emit("secret.refused", { ...refusal });
  if (!run.ok && secretRefusals.length > 0) {
    if (state.intent) await deps.idempotency?.abandon(idempotencyKey, state.intent, recordOwner(context));
    // Refused before anything left the process: a refusal, not a failure of the tool.
    const message = errorMessage(run.error);
    await trace.emit("tool.executed", { status: "refused", failure: "different_action", attempts, error: message }, { durationMs });
    return {
      status: "refused",
      trust: "runtime",
      failure: "different_action",
      message,
      durationMs,
      attempts,
      content: `${tool.name} was refused: ${message}. A secret goes only to the tools and hosts the deployment binds it to; choose a different action.`,
    };
  }
  // Whatever a non-read tool did, earlier reads in this run may now be stale.
  if (tool.effect !== "read") await (context.cache ?? deps.cache)?.invalidate(context.runId);
  if (!run.ok) {
    const status = run.timedOut ? "timeout" : "error";
    const error = errorMessage(run.error);
    await trace.emit("tool.executed", { status, failure: run.failure, attempts, error: errorSummary(error, deps) }, { durationMs });
    state.execution = { kind: "failed", status, error, failure: run.failure, replayed: false, attempts, durationMs };
    return undefined;
  }
  state.execution = { kind: "output", output: run.output, attempts, durationMs };
  return undefined;
};

/** The arguments as a live view may see them: as the model sent them, redacted, and none above 4 KiB (as `tool.called`). */
function watchedArgs(state: CallInProgress): unknown {
  if (safeJson(state.call.input).length > TRACE_ARGS_LIMIT) return undefined;
  return state.deps.redactor ? state.deps.redactor.redactValue(state.call.input) : state.call.input;
}

/** A progress report as a live view may see it: the tool's words redacted (the trace's copy is redacted by its sink). */
function watchedProgress(state: CallInProgress, update: ToolProgress): ToolProgress {
  const { message, ...numbers } = update;
  if (message === undefined) return numbers;
  return { ...numbers, message: state.deps.redactor ? state.deps.redactor.redact(message).text : message };
}

/** How a run ended, in the words of a call's result; `interrupted` when the step was given back or its run ended. */
function watchedStatus(run: RunResult | undefined, signal: AbortSignal): string {
  if (run?.ok) return "ok";
  if (signal.aborted) return "interrupted";
  return run?.timedOut ? "timeout" : "error";
}

/** Read-only idempotent results are kept for the rest of the run, when the deployment has a cache. */
export function isCacheable(tool: AnyTool, deps: ResolvedExecutorDeps): boolean {
  return tool.effect === "read" && tool.idempotent && deps.cache !== undefined;
}

/** A tool's error as the trace and the result event state it: redacted and bounded like what the model sees, then cut. */
export function errorSummary(error: string, deps: ResolvedExecutorDeps): string {
  const { maxBytes, maxLines } = deps.config.observations;
  return prepareUntrusted(error, { redactor: deps.redactor, maxBytes, maxLines }).shown.slice(0, ERROR_MESSAGE_CHARS);
}

function toolContext(
  state: CallInProgress,
  signal: AbortSignal,
  secrets: ToolContext["secrets"],
  progress: ToolContext["progress"],
): ToolContext {
  const { context, deps } = state;
  const callId = state.call.id;
  let screen: EntryScreen | undefined;
  return {
    runId: context.runId,
    stepId: context.stepId,
    callId,
    idempotencyKey: state.idempotencyKey,
    signal,
    workspace: context.workspace,
    secrets,
    artifacts: deps.artifacts,
    logger: deps.logger.child({ runId: context.runId, stepId: context.stepId, callId }),
    progress,
    // Built on first use: only enumerating tools ask for it.
    get screen() {
      screen ??= screenOf(state);
      return screen;
    },
  };
}

/** The policy of this call, over each entry it would return. */
function screenOf(state: CallInProgress): EntryScreen {
  const tool = need(state, "tool");
  return entryScreen({
    tool: tool.name,
    effect: tool.effect,
    layers: { packet: state.context.policy, config: state.deps.config.policy },
    grant: need(state, "grant").scope,
    argBytes: Buffer.byteLength(canonicalJson(need(state, "input").args)),
    approved: state.decision,
  });
}
