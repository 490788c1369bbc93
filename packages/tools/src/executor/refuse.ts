import type { CallInProgress } from "./call-in-progress.ts";
import type { CallEnding } from "./call-end-records.ts";

/** A call the runtime would not run: the event says why, the model is told what to change. */
export async function refuse(
  call: CallInProgress,
  kind: "tool.refused" | "tool.input_invalid",
  reason: string,
  content: string,
  payload: Record<string, unknown> = {},
): Promise<CallEnding> {
  await call.trace.emit(kind, { reason, ...payload });
  return {
    status: kind === "tool.input_invalid" ? "invalid_input" : "refused",
    content,
    trust: "runtime",
    failure: "different_action",
    message: reason,
  };
}
