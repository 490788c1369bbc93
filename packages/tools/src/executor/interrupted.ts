import { ReinError } from "@rein/contracts";
import type { CallInProgress } from "./call-in-progress.ts";

/**
 * The step was given back (shutdown past its grace) while this call was
 * starting or running. That is not an observation and not a failed call:
 * the call ends by throwing, the checkpoint stays before its turn, and the
 * step's next run re-issues it under the intent rules.
 */
export async function interrupted(state: CallInProgress): Promise<ReinError> {
  await state.trace.emit("tool.interrupted", { idempotencyKey: state.idempotencyKey, intent: state.intent !== undefined });
  return new ReinError("tool_failed", `the step was given back while ${state.call.name} ran`, {
    retryable: true,
    details: { interrupted: true },
  });
}
