import type { PermissionDecision, PermissionOutcome, PolicyRule } from "../contracts/index.ts";
import { defaultDecision } from "./default-rules.ts";
import { type PolicyRequest, ruleApplies } from "./rule-match.ts";

export interface PolicyLayers {
  /** The goal's rules, carried in the packet. */
  packet: readonly PolicyRule[];
  /** The deployment's rules from config. */
  config: readonly PolicyRule[];
}

const strictness: Record<PermissionOutcome, number> = { allow: 0, ask: 1, deny: 2 };

/**
 * Decides one call. Within a layer the first applicable rule decides, so a
 * specific rule can precede a broad one. Across layers the strictest
 * decision wins: the packet's rules are checked first, but a goal can only
 * tighten what the deployment allows, never loosen an `ask` or `deny` of
 * config. When no rule of either layer applies, the effect's default decides.
 * A tool that demands approval turns an `allow` into an `ask`.
 */
export function decidePermission(
  request: PolicyRequest,
  layers: PolicyLayers,
  options: { forceAsk?: string } = {},
): PermissionDecision {
  const decided = [firstApplicable(layers.packet, request), firstApplicable(layers.config, request)].filter(
    (decision): decision is PermissionDecision => decision !== undefined,
  );
  let decision =
    decided.length === 0
      ? defaultDecision(request)
      : decided.reduce((strictest, next) => (strictness[next.decision] > strictness[strictest.decision] ? next : strictest));
  if (options.forceAsk && decision.decision === "allow") {
    decision = { decision: "ask", rule: `tool:${request.tool}:approval`, reason: options.forceAsk };
  }
  return decision;
}

function firstApplicable(rules: readonly PolicyRule[], request: PolicyRequest): PermissionDecision | undefined {
  const rule = rules.find((candidate) => ruleApplies(candidate, request));
  if (!rule) return undefined;
  return { decision: rule.decision, rule: rule.id, reason: rule.reason ?? `rule ${rule.id} says ${rule.decision}` };
}
