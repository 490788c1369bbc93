import type { PermissionDecision } from "@rein/contracts";
import type { PolicyRequest } from "./rule-match.ts";

/**
 * What happens when no configured rule matches: reads run, writes run when
 * they touch only workspace paths, anything destructive or leaving the
 * workspace waits for a person.
 */
export function defaultDecision(request: PolicyRequest): PermissionDecision {
  switch (request.effect) {
    case "read":
      return { decision: "allow", rule: "default:read", reason: "read-only tools run by default" };
    case "write": {
      const { paths = [], hosts = [], commands = [], services = [] } = request.scope;
      const onlyWorkspace = paths.length > 0 && hosts.length + commands.length + services.length === 0;
      return onlyWorkspace
        ? { decision: "allow", rule: "default:write", reason: "writes confined to the run's workspace run by default" }
        : {
            decision: "ask",
            rule: "default:write",
            reason: "this write names no workspace path or reaches beyond the workspace, so a person must approve it",
          };
    }
    case "destructive":
      return { decision: "ask", rule: "default:destructive", reason: "destructive tools need a person's approval" };
    case "external":
      return { decision: "ask", rule: "default:external", reason: "tools that act outside the workspace need a person's approval" };
  }
}
