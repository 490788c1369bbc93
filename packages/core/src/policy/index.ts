export { decidePermission, type PolicyLayers } from "./permission-policy.ts";
export { defaultDecision } from "./default-rules.ts";
export { ruleApplies, type PolicyRequest } from "./rule-match.ts";
export {
  commandMatches,
  hostMatches,
  pathMatches,
  resourcesOutside,
  SCOPE_DIMENSIONS,
  type ScopeDimension,
  serviceMatches,
} from "./resource-match.ts";
