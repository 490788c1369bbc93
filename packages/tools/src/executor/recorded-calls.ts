import type { StepOwner } from "../ports/idempotency-log.ts";
import type { AnyTool } from "../define-tool.ts";
import type { StepExecutionContext } from "../tool-executor.ts";

/**
 * Calls whose running twice could matter get an intent before they start
 * and an outcome after: every side effect, and a read that declares it is
 * not idempotent.
 */
export function isRecordedCall(tool: AnyTool): boolean {
  return tool.effect !== "read" || !tool.idempotent;
}

/**
 * Whether a call a crash cut off may simply run again: an idempotent one,
 * and any read (a read that is not idempotent, like a check of the
 * workspace of the moment, gives a new answer but changes nothing).
 */
export function isRepeatable(tool: AnyTool): boolean {
  return tool.idempotent || tool.effect === "read";
}

/** Whose records a call writes: the step's owner when it runs from a queue, so a worker cut off from its step writes none. */
export function recordOwner(context: StepExecutionContext): StepOwner | undefined {
  return context.ownerToken === undefined ? undefined : { runId: context.runId, stepId: context.stepId, token: context.ownerToken };
}
