import type { ToolEffect } from "../contracts/index.ts";

export interface McpAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/**
 * A server's tool effect: what config says, else what the server's
 * annotations claim, else `external` (so the default policy asks). A server
 * can only talk its tools *down* to read through annotations when the
 * deployment chose to run that server at all.
 */
export function mcpEffect(annotations: McpAnnotations | undefined, override?: ToolEffect): ToolEffect {
  if (override) return override;
  if (annotations?.readOnlyHint === true) return "read";
  if (annotations?.destructiveHint === true) return "destructive";
  return "external";
}
