import type { AnyTool } from "../define-tool.ts";

/**
 * Calls whose running twice could matter get an intent before they start
 * and an outcome after: every side effect, and a read that declares it is
 * not idempotent.
 */
export function isRecordedCall(tool: AnyTool): boolean {
  return tool.effect !== "read" || !tool.idempotent;
}
