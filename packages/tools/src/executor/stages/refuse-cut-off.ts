import type { CallStage } from "../call-in-progress.ts";
import { quoteName } from "../quote-name.ts";

/** A cut-off call is never run: its arguments are not what the model meant. */
export const refuseCutOff: CallStage = async ({ call, trace }) => {
  if (!call.incomplete) return undefined;
  await trace.emit("tool.refused", { reason: "cut_off", detail: call.incomplete.reason });
  return {
    status: "cut_off",
    trust: "runtime",
    failure: "different_action",
    message: `cut off: ${call.incomplete.reason}`,
    content: `Your output was cut off before the call to ${quoteName(call.name)} was complete (${call.incomplete.reason}), so it was not executed. If you still need it, re-issue the call with complete arguments.`,
  };
};
