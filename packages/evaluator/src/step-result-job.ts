import { ReinError } from "@rein/contracts";
import { ControlEvent, type StepFinishedEvent } from "@rein/contracts/messages";
import { type RunEvents, toQueueError } from "@rein/consumer";

/** The `step.finished` event a step-result job carries; a job that carries anything else fails for good. */
export function stepResultOf(jobId: string | undefined, data: unknown): StepFinishedEvent {
  const parsed = ControlEvent.safeParse(data);
  if (!parsed.success || parsed.data.type !== "step.finished") {
    const problem = parsed.success ? `a ${parsed.data.type} event` : parsed.error.message;
    throw toQueueError(new ReinError("contract_invalid", `step-result job ${jobId} is not a step.finished event: ${problem}`));
  }
  return parsed.data;
}

/**
 * Applies a step's result where it arrived: through `events` (the
 * transition, with the evaluation it asks for handed over in process where
 * this process hosts it), or on to the controller where this process may
 * not apply it. A failure to apply fails the job, for the queue to retry.
 */
export async function applyStepResult(event: StepFinishedEvent, events: RunEvents): Promise<void> {
  try {
    await events.apply(event);
  } catch (error) {
    throw toQueueError(error);
  }
}
