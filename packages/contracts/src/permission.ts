import { z } from "zod";

export const ToolEffect = z.enum(["read", "write", "destructive", "external"]);
export type ToolEffect = z.infer<typeof ToolEffect>;

export const PermissionOutcome = z.enum(["allow", "deny", "ask"]);
export type PermissionOutcome = z.infer<typeof PermissionOutcome>;

/**
 * A declarative permission rule. It applies to a call when the tool name
 * matches `tool` (a glob), its effect matches `effect` (if given), and its
 * resources meet the constraints. For `allow` and `ask` every resource of the
 * call must match the constraint; for `deny` one matching resource is enough.
 */
export const PolicyRule = z.object({
  id: z.string().min(1),
  tool: z.string().default("*"),
  effect: z.array(ToolEffect).optional(),
  decision: PermissionOutcome,
  paths: z.array(z.string()).optional(),
  hosts: z.array(z.string()).optional(),
  commands: z.array(z.string()).optional(),
  services: z.array(z.string()).optional(),
  /** Largest canonical-JSON size of the arguments, in bytes. */
  maxArgBytes: z.number().int().positive().optional(),
  reason: z.string().optional(),
});
export type PolicyRule = z.infer<typeof PolicyRule>;

/** A goal rule that would have loosened the deployment's decision, and so did not count. */
export const IgnoredRule = z.object({
  rule: z.string(),
  decision: PermissionOutcome,
  reason: z.string(),
});
export type IgnoredRule = z.infer<typeof IgnoredRule>;

export const PermissionDecision = z.object({
  decision: PermissionOutcome,
  /** The id of the rule that decided; defaults are named `default:<effect>`. */
  rule: z.string(),
  reason: z.string(),
  /** The goal's rule that was overruled because a goal can only tighten the deployment's policy. */
  ignored: IgnoredRule.optional(),
});
export type PermissionDecision = z.infer<typeof PermissionDecision>;
