import type { IgnoredRule, PermissionDecision, PermissionOutcome, PolicyRule } from "@rein/contracts";
import { defaultDecision } from "./default-rules.ts";
import { type ComparisonBudget, comparisonBudget } from "./pattern-containment.ts";
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
 * specific rule can precede a broad one. The deployment's decision is its
 * first applicable config rule, else the effect's built-in default; the
 * goal's is its first applicable packet rule. The stricter of the two wins
 * (deny > ask > allow), so a goal can narrow what the deployment allows but
 * never widen it: a goal `allow` where the deployment says ask or deny is
 * ignored, and the decision names the ignored rule so the trace shows it.
 * A tool that demands approval turns an `allow` into an `ask`.
 */
export function decidePermission(request: PolicyRequest, layers: PolicyLayers, options: { forceAsk?: string } = {}): PermissionDecision {
  const budget = comparisonBudget();
  const deployment = firstApplicable(layers.config, request, budget) ?? defaultDecision(request);
  const goal = firstApplicable(layers.packet, request, budget);
  let decision = deployment;
  if (goal && strictness[goal.decision] > strictness[deployment.decision]) decision = goal;
  if (goal && strictness[goal.decision] < strictness[deployment.decision])
    decision = { ...deployment, ignored: ignoredGoalRule(goal, deployment) };
  if (options.forceAsk && decision.decision === "allow") {
    decision = { decision: "ask", rule: `tool:${request.tool}:approval`, reason: options.forceAsk };
  }
  return decision;
}

function ignoredGoalRule(goal: PermissionDecision, deployment: PermissionDecision): IgnoredRule {
  return {
    rule: goal.rule,
    decision: goal.decision,
    reason: `the goal's rule ${goal.rule} says ${goal.decision}, but a goal can only tighten the deployment's ${deployment.decision} (rule ${deployment.rule}); allow it in the deployment's config policy instead`,
  };
}

function firstApplicable(rules: readonly PolicyRule[], request: PolicyRequest, budget: ComparisonBudget): PermissionDecision | undefined {
  const rule = rules.find((candidate) => ruleApplies(candidate, request, budget));
  if (!rule) return undefined;
  return { decision: rule.decision, rule: rule.id, reason: rule.reason ?? `rule ${rule.id} says ${rule.decision}` };
}
