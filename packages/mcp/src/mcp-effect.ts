import type { ToolEffect } from "@rein/contracts";

export interface McpAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface McpEffectOptions {
  /** The deployment's own word for this tool (config `mcp[].tools.<name>.effect`); it always wins. */
  override?: ToolEffect;
  /** Config `mcp[].trustAnnotations`: whether the server may talk its tools down. @defaultValue false */
  trustAnnotations?: boolean;
}

/**
 * A server's tool effect. Annotations are the server's own claims, so they
 * can make a tool stricter (`destructiveHint` → destructive) but lower it
 * below `external` (and so skip the approval the defaults ask for) only when
 * the deployment said `trustAnnotations: true` for that server. What config
 * says for the tool wins over both.
 */
export function mcpEffect(annotations: McpAnnotations | undefined, options: McpEffectOptions = {}): ToolEffect {
  if (options.override) return options.override;
  if (annotations?.destructiveHint === true) return "destructive";
  if (options.trustAnnotations && annotations?.readOnlyHint === true) return "read";
  return "external";
}

/** Whether a retry or a crash re-run may repeat the call: only what is read-only, or idempotent by a trusted claim. */
export function mcpIdempotent(effect: ToolEffect, annotations: McpAnnotations | undefined, trustAnnotations: boolean): boolean {
  return effect === "read" || (trustAnnotations && annotations?.idempotentHint === true);
}
