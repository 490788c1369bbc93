import { type StepBudget, type ToolGrant, ReinError } from "@rein/contracts";
import { resourcesOutside, SCOPE_DIMENSIONS } from "@rein/guard";

/** What a packet may never exceed: its parent's surface and remaining budget. */
export interface PacketBounds {
  surface: readonly ToolGrant[];
  budget: StepBudget;
  /** The deepest a delegation chain may go. */
  maxDepth: number;
}

export interface AttenuatedPacket {
  surface: readonly ToolGrant[];
  budget: StepBudget;
  depth: number;
}

/**
 * Checks that `child` is an attenuation of `bounds`: every tool it may use
 * is on the parent's surface, every scope is inside the parent's scope for
 * that tool, its budget is no larger than what the parent has left, and its
 * depth is within the limit. Scope containment is decided conservatively: a
 * child pattern must itself be covered by a parent pattern (`src/lib/**`
 * under `src/**`), and a dimension the parent restricts may not be left
 * unrestricted by the child. Throws `packet_invalid` naming the invariant.
 */
export function assertAttenuated(child: AttenuatedPacket, bounds: PacketBounds): void {
  if (child.depth > bounds.maxDepth) {
    throw broken(`depth: delegation depth ${child.depth} is over the maximum of ${bounds.maxDepth}`);
  }
  const parentTools = new Map(bounds.surface.map((grant) => [grant.name, grant]));
  for (const grant of child.surface) {
    const parent = parentTools.get(grant.name);
    if (!parent) {
      throw broken(`surface: tool ${grant.name} is not on the parent's surface (${[...parentTools.keys()].join(", ") || "none"})`);
    }
    for (const dimension of SCOPE_DIMENSIONS) {
      if (parent.scope[dimension] && !grant.scope[dimension]) {
        throw broken(
          `scope: ${grant.name}.${dimension} is unrestricted, but the parent limits it to ${parent.scope[dimension]?.join(", ")}`,
        );
      }
    }
    const outside = resourcesOutside(grant.scope, parent.scope);
    if (outside.length > 0) {
      const [first] = outside;
      throw broken(
        `scope: ${grant.name}.${first?.dimension} ${first?.values.join(", ")} is outside the parent's ${parent.scope[first?.dimension ?? "paths"]?.join(", ")}`,
      );
    }
  }
  for (const limit of ["maxTurns", "maxToolCalls", "maxTokens", "maxMs"] as const) {
    if (child.budget[limit] > bounds.budget[limit]) {
      throw broken(`budget: ${limit} ${child.budget[limit]} is more than the parent's remaining ${bounds.budget[limit]}`);
    }
  }
  const parentCost = bounds.budget.maxCostUsd;
  if (parentCost !== undefined && (child.budget.maxCostUsd === undefined || child.budget.maxCostUsd > parentCost)) {
    throw broken(`budget: maxCostUsd ${child.budget.maxCostUsd ?? "unlimited"} is more than the parent's remaining ${parentCost}`);
  }
}

const broken = (message: string) => new ReinError("packet_invalid", `attenuation broken: ${message}`);
