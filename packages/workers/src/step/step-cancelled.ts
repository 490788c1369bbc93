import { ReinError } from "@rein/contracts";
import { RunStatus } from "@rein/contracts/run";
import type { StepContext } from "./step-context.ts";

/** The `run_ended` error that stopped the step, whether its signal carried it or its refused turn write threw it. */
export function runEndedError(error: unknown, signal: AbortSignal): ReinError | undefined {
  if (signal.aborted && ReinError.hasCode(signal.reason, "run_ended")) return signal.reason;
  return ReinError.hasCode(error, "run_ended") ? error : undefined;
}

/**
 * Records that the step's run ended while it ran, with what the cancel cut
 * off, after the events its cut-off turn traced (the aborted model call,
 * the interrupted tool call): the audit trail must show why the step stopped
 * where it did, so this write lands in the ended run. Only while the step is
 * still this worker's, though: a worker cut off from Redis whose step another
 * took over (and whose run then ended) learns of the end only on reconnect,
 * and its turn is not the run's history, so it writes nothing.
 */
export async function traceCancelled(step: StepContext, ended: ReinError): Promise<void> {
  const { body, loop, inFlight, deps } = step;
  if (deps.lockHeld && !deps.lockHeld()) return;
  const runStatus = RunStatus.safeParse(ended.details.status);
  await step.trace.append({
    runId: body.runId,
    stepId: body.stepId,
    parentStepId: body.parentStepId,
    kind: "step.cancelled",
    payload: {
      attempt: body.attempt,
      runStatus: runStatus.success ? runStatus.data : null,
      cutOff: inFlight?.kind ?? "nothing",
      tool: inFlight?.kind === "tool_call" ? inFlight.tool : null,
      turns: loop.turns,
      calls: loop.records.length,
    },
  });
  try {
    await deps.checkpoints.saveTurn({
      runId: body.runId,
      stepId: body.stepId,
      trace: step.trace.take(),
      ownerToken: deps.ownerToken,
      refreshTtl: true,
      afterRunEnd: true,
    });
  } catch (error) {
    if (!ReinError.hasCode(error, "lock_lost")) throw error;
  }
}
