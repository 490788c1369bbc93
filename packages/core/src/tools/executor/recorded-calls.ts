import type { AnyTool } from "../define-tool.ts";

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
