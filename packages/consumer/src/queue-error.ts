import { UnrecoverableError } from "bullmq";
import { ReinError } from "@rein/contracts";

/**
 * BullMQ retries a job that throws unless the error is an UnrecoverableError.
 * Non-retryable Rein errors become one, so the queue's own machinery decides.
 */
export function toQueueError(error: unknown): Error {
  if (ReinError.isInstance(error) && !error.retryable) {
    const unrecoverable = new UnrecoverableError(`${error.code}: ${error.message}`);
    unrecoverable.cause = error;
    return unrecoverable;
  }
  return error instanceof Error ? error : new Error(String(error));
}
