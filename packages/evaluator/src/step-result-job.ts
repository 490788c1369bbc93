import { ReinError } from "@rein/contracts";
import { ControlEvent, type StepFinishedEvent } from "@rein/contracts/messages";
import { type RunEvents, toQueueError } from "@rein/consumer";

/** The `step.finished` event a step-result job carries, or why it is none (any other event is refused). */
function parseStepResult(data: unknown): { event: StepFinishedEvent } | { problem: string } {
  const parsed = ControlEvent.safeParse(data);
  if (!parsed.success) return { problem: parsed.error.message };
  if (parsed.data.type !== "step.finished") return { problem: `a ${parsed.data.type} event` };
  return { event: parsed.data };
}

/** The `step.finished` event a step-result job carries; a job that carries anything else fails for good. */
export function stepResultOf(jobId: string | undefined, data: unknown): StepFinishedEvent {
  const parsed = parseStepResult(data);
  if ("problem" in parsed)
    throw toQueueError(new ReinError("contract_invalid", `step-result job ${jobId} is not a step.finished event: ${parsed.problem}`));
  return parsed.event;
}

/** A failed step-result job's event, for the controller to apply; undefined when it carries anything but a step's result. */
export function stepResultToPassOn(data: unknown): StepFinishedEvent | undefined {
  const parsed = parseStepResult(data);
  return "event" in parsed ? parsed.event : undefined;
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
