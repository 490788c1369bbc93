import { ReinError, RunStatus } from "@rein/core";
import type { StepContext } from "./step-context.ts";

/** The `run_ended` error that stopped the step, whether its signal carried it or its refused turn write threw it. */
export function runEndedError(error: unknown, signal: AbortSignal): ReinError | undefined {
  if (signal.aborted && ReinError.hasCode(signal.reason, "run_ended")) return signal.reason;
  return ReinError.hasCode(error, "run_ended") ? error : undefined;
}

/**
 * Records that the step's run ended while it ran, with what the cancel cut
 * off, after the events its cut-off turn traced (the aborted model call,
 * the interrupted tool call). Written straight to the trace: the fenced
 * turn write refuses an ended run, and the audit trail must still show why
 * the step stopped where it did.
 */
export async function traceCancelled(step: StepContext, ended: ReinError): Promise<void> {
  const { body, loop, inFlight } = step;
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
  await step.trace.flush();
}
