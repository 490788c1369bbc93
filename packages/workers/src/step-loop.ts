import { type HandoffPacket, ReinError, type StepResult } from "@rein/contracts";
import { toolCallsOf } from "@rein/models";
import { answerCalls } from "./step/answer-calls.ts";
import { takeModelTurn } from "./step/model-turn.ts";
import { saveTurn, settleTurnWrite, startTurnWrite, writeTrace } from "./step/save-turn.ts";
import { runEndedError, traceCancelled } from "./step/step-cancelled.ts";
import { openStep, type StepContext, type StepLoopDeps } from "./step/step-context.ts";
import { budgetStop, finalResult, stepResult, suspendedResult, toolBudgetStop, unknownOutcomeStop } from "./step/step-result.ts";

export type { StepLoopDeps } from "./step/step-context.ts";

/**
 * The bounded model↔tool loop of one step, in stages: open the context
 * (from the packet, or this attempt's checkpoint), then per turn a model
 * call, the answers to its calls, and one durable write; it finishes on a
 * final answer, a suspension or a spent budget. `signal` stops it with
 * whatever is in flight: on shutdown (the step is given back) or when its
 * run ends (`run_ended`, traced as `step.cancelled`; nothing is retried).
 */
export async function runStepLoop(packet: HandoffPacket, deps: StepLoopDeps, signal: AbortSignal): Promise<StepResult> {
  const step = await openStep(packet, deps);
  let result: StepResult;
  try {
    result = await turns(step, signal);
    await settleTurnWrite(step);
  } catch (thrown) {
    // A turn write still in flight lands (or is refused) before anything else is written; its refusal is why the step stopped.
    const error = await settleTurnWrite(step).then(
      () => thrown,
      (refused: unknown) => refused,
    );
    // Its run ended (cancelled, failed, escalated): what was in flight was aborted,
    // nothing more is called, and the trace says where the step stopped.
    const ended = runEndedError(error, signal);
    if (ended) {
      await traceCancelled(step, ended);
      throw ended;
    }
    // Cut off (given back on shutdown, or a transient failure): nothing is
    // checkpointed here, so the next worker resumes from the last whole turn
    // and redoes this one under the same idempotency keys; what it traced is
    // still written. A worker that lost its job writes nothing more.
    if (!ReinError.hasCode(error, "lock_lost")) await writeTrace(step);
    throw error;
  }
  await writeTrace(step);
  return result;
}

async function turns(step: StepContext, signal: AbortSignal): Promise<StepResult> {
  const { loop } = step;
  if (loop.pending) {
    const suspension = await answerCalls(
      step,
      loop.pending.calls.filter((block) => block.type === "tool_call"),
      [...loop.pending.answered],
      signal,
    );
    await saveTurn(step);
    if (suspension) return suspendedResult(step, suspension);
  }
  for (;;) {
    const stop = budgetStop(step);
    if (stop) return stop;
    // Made while the previous turn's write is in flight; its reply is used only once that write landed (see startTurnWrite).
    const turn = await takeModelTurn(step, signal);
    await settleTurnWrite(step);
    if (turn.kind === "failed") return stepResult(step, "failed", { summary: "the model call failed", error: turn.error });
    if (turn.kind === "over_budget")
      return stepResult(step, "budget_exhausted", { summary: turn.reason, error: "step token or cost budget spent" });
    const calls = toolCallsOf(turn.response.content);
    if (calls.length === 0) return finalResult(step, turn.response);
    const callsBefore = loop.records.length;
    const suspension = await answerCalls(step, calls, [], signal);
    startTurnWrite(step);
    if (suspension) return suspendedResult(step, suspension);
    const stopped = toolBudgetStop(step) ?? unknownOutcomeStop(step, callsBefore);
    if (stopped) return stopped;
  }
}
