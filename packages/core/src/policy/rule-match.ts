import type { PolicyRule, Scope, ToolEffect } from "../contracts/index.ts";
import { globMatcher, resourceMatches, SCOPE_DIMENSIONS } from "./resource-match.ts";

/** What the policy knows about one call, after its scope was normalized. */
export interface PolicyRequest {
  tool: string;
  effect: ToolEffect;
  /** Resources the call touches; paths are workspace-relative. */
  scope: Scope;
  /** Canonical-JSON size of the arguments in bytes. */
  argBytes: number;
}

/**
 * Whether `rule` applies to the call. Name glob and effect must match. For
 * each resource kind the rule constrains: an `allow` or `ask` rule applies
 * only when the call names at least one such resource and every one matches
 * (so `allow paths: [src/**]` never allows a call that touches no path, or
 * one path outside); a `deny` rule applies when any one matches. Constraints
 * on different kinds must all hold. `maxArgBytes` bounds an allow/ask rule
 * and triggers a deny rule when exceeded.
 */
export function ruleApplies(rule: PolicyRule, request: PolicyRequest): boolean {
  if (!globMatcher(rule.tool)(request.tool)) return false;
  if (rule.effect && !rule.effect.includes(request.effect)) return false;
  const denying = rule.decision === "deny";
  for (const dimension of SCOPE_DIMENSIONS) {
    const patterns = rule[dimension];
    if (!patterns) continue;
    const values = request.scope[dimension] ?? [];
    const matches = values.map((value) => resourceMatches(dimension, patterns, value));
    const holds = denying ? matches.some(Boolean) : matches.length > 0 && matches.every(Boolean);
    if (!holds) return false;
  }
  if (rule.maxArgBytes !== undefined) {
    const tooBig = request.argBytes > rule.maxArgBytes;
    if (denying !== tooBig) return false;
  }
  return true;
}
