import { type Scope, ReinError } from "@rein/contracts";
import { resourcesOutside } from "@rein/guard";
import { type CallStage, need } from "../call-in-progress.ts";
import { normalizeScope } from "../call-scope.ts";
import { refuse } from "../refuse.ts";

/** What the call touches, confined to the workspace and within the step's grant. */
export const checkScope: CallStage = async (state) => {
  const tool = need(state, "tool");
  const grant = need(state, "grant");
  let scope: Scope;
  try {
    scope = await normalizeScope(tool.scope(need(state, "input").args), state.context.workspace);
  } catch (error) {
    if (!ReinError.isInstance(error)) throw error;
    if (error.details.invalidInput === true) {
      return refuse(
        state,
        "tool.input_invalid",
        "invalid_input",
        `The arguments for ${tool.name} are invalid, so the call was not executed: ${error.message}. Correct them and call again.`,
        { error: error.message },
      );
    }
    return refuse(state, "tool.refused", "workspace_violation", `${tool.name} was not executed: ${error.message}.`, {
      error: error.message,
    });
  }
  const outside = resourcesOutside(scope, grant.scope);
  if (outside.length > 0) {
    const listing = outside.map(
      ({ dimension, values }) => `${dimension} ${values.join(", ")} (allowed: ${(grant.scope[dimension] ?? []).join(", ") || "none"})`,
    );
    return refuse(state, "tool.refused", "outside_grant", `${tool.name} was not executed: this step may not touch ${listing.join("; ")}.`, {
      outside,
    });
  }
  state.scope = scope;
  return undefined;
};
