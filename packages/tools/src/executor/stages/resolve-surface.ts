import type { CallStage } from "../call-in-progress.ts";
import { quoteName } from "../quote-name.ts";
import { refuse } from "../refuse.ts";

/** Only tools the packet grants exist for this step, whatever the model names. */
export const resolveSurface: CallStage = async (state) => {
  const { call, context, deps } = state;
  const grant = context.surface.find((candidate) => candidate.name === call.name);
  const tool = grant ? deps.registry.get(grant.name) : undefined;
  if (!grant || !tool) {
    const allowed = context.surface
      .map((candidate) => candidate.name)
      .filter((name) => deps.registry.has(name))
      .sort();
    const withheld = grant ? deps.registry.whyWithheld(grant.name) : undefined;
    return refuse(
      state,
      "tool.refused",
      "not_on_surface",
      `The tool ${quoteName(call.name)} is not available in this step${withheld ? ` (it is not offered: ${withheld})` : ""}, so the call was not executed. Available tools: ${allowed.length > 0 ? allowed.join(", ") : "(none)"}.`,
      { allowed, ...(withheld ? { detail: withheld } : {}) },
    );
  }
  state.grant = grant;
  state.tool = tool;
  return undefined;
};
