import type { PolicyRule, Scope, ToolEffect } from "@rein/contracts";
import { type ComparisonBudget, comparisonBudget } from "./pattern-containment.ts";
import { globMatcher, resourceOverlaps, resourceWithin, SCOPE_DIMENSIONS } from "./resource-match.ts";

/** What the policy knows about one call, after its scope was normalized. */
export interface PolicyRequest {
  tool: string;
  effect: ToolEffect;
  /** Resources the call touches, as patterns (a literal path is an escaped glob); paths are workspace-relative. */
  scope: Scope;
  /** Canonical-JSON size of the arguments in bytes. */
  argBytes: number;
  /**
   * The tool enumerates: its path patterns name what it may list or search,
   * and it screens each entry it would return (`EntryScreen`). A deny or ask
   * rule then decides the whole call only when it covers the call's whole
   * pattern; one that covers part of it withholds those entries instead.
   */
  enumerates?: boolean;
}

/**
 * Whether `rule` applies to the call. Name glob and effect must match. For
 * each resource kind the rule constrains: an `allow` rule applies only when
 * the call names at least one such resource and the rule's patterns contain
 * every one (so `allow paths: [src/**]` never allows a call that touches no
 * path, or one path outside); a `deny` or `ask` rule applies when the call
 * may touch anything it covers (any resource overlaps one of its patterns;
 * for an enumerating call's paths, contained in one). Constraints on
 * different kinds must all hold. `maxArgBytes` bounds an allow/ask rule and
 * triggers a deny rule when exceeded. Pattern comparisons draw on `budget`,
 * one per decision: past it, the narrower answer (docs/policy.md).
 */
export function ruleApplies(rule: PolicyRule, request: PolicyRequest, budget: ComparisonBudget = comparisonBudget()): boolean {
  if (!globMatcher(rule.tool)(request.tool)) return false;
  if (rule.effect && !rule.effect.includes(request.effect)) return false;
  const restricting = rule.decision !== "allow";
  for (const dimension of SCOPE_DIMENSIONS) {
    const patterns = rule[dimension];
    if (!patterns) continue;
    const values = request.scope[dimension] ?? [];
    const touches = dimension === "paths" && request.enumerates ? resourceWithin : resourceOverlaps;
    const holds = restricting
      ? values.some((value) => patterns.some((pattern) => touches(dimension, pattern, value, budget)))
      : values.length > 0 && values.every((value) => patterns.some((pattern) => resourceWithin(dimension, pattern, value, budget)));
    if (!holds) return false;
  }
  if (rule.maxArgBytes !== undefined) {
    const tooBig = request.argBytes > rule.maxArgBytes;
    if ((rule.decision === "deny") !== tooBig) return false;
  }
  return true;
}
