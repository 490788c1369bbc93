import type { ResolvedExecutorDeps } from "../tool-executor-deps.ts";
import type { ModelToolCall, StepExecutionContext, ToolCallOutcome } from "../tool-executor.ts";
import { type CallIdentity, endCall } from "./call-end-records.ts";
import { type CallInProgress, type CallStage, stageOrderError } from "./call-in-progress.ts";
import { CALL_STAGES } from "./call-stages.ts";
import { CallTrace } from "./call-trace.ts";
import { safeHash, safeJson, TRACE_ARGS_LIMIT } from "./safe-json.ts";

/** One call through the stages of ARCHITECTURE §5, in order; the first stage that ends the call says why. */
export async function executeCall(
  deps: ResolvedExecutorDeps,
  call: ModelToolCall,
  index: number,
  context: StepExecutionContext,
  stages: readonly CallStage[] = CALL_STAGES,
): Promise<ToolCallOutcome> {
  const state = await startCall(deps, call, index, context);
  for (const stage of stages) {
    const ending = await stage(state);
    if (ending) return endCall(state.identity, ending, state.trace, deps.now);
  }
  throw stageOrderError("no stage ended the call with an observation");
}

/** The call's identity and trace, and its first event: what the model asked for, before anything was decided. */
async function startCall(
  deps: ResolvedExecutorDeps,
  call: ModelToolCall,
  index: number,
  context: StepExecutionContext,
): Promise<CallInProgress> {
  const identity: CallIdentity = {
    callId: call.id,
    tool: call.name,
    index,
    argsHash: safeHash(call.input),
    fingerprint: safeHash({ tool: call.name, args: call.input }),
  };
  const sink = context.trace ?? deps.trace;
  const { redactor } = deps;
  // Redacted once: by a sink that redacts all it stores with this redactor (observers included), else here.
  const trace = new CallTrace(
    sink,
    { runId: context.runId, stepId: context.stepId, parentStepId: context.parentStepId, ...identity },
    redactor && !sink.redactsWith?.(redactor) ? (payload) => redactor.redactValue(payload) : undefined,
  );
  const idempotencyKey = `${context.runId}:${context.stepId}:${context.attempt}:${index}`;
  const argsJson = safeJson(call.input);
  await trace.emit("tool.called", {
    idempotencyKey,
    argBytes: Buffer.byteLength(argsJson),
    args: argsJson.length <= TRACE_ARGS_LIMIT ? call.input : undefined,
    incomplete: call.incomplete ? call.incomplete.reason : undefined,
  });
  return { deps, call, context, identity, trace, idempotencyKey };
}
