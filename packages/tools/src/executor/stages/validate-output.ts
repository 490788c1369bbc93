import { type CallStage, need } from "../call-in-progress.ts";
import { describeIssues } from "../describe-issues.ts";
import { safeHash } from "../safe-json.ts";

/** A result that breaks the tool's declared output schema is never passed on as valid. */
export const validateOutput: CallStage = async (state) => {
  const tool = need(state, "tool");
  const execution = need(state, "execution");
  if (execution.kind !== "output" || !tool.output) return undefined;
  const checked = tool.output.safeParse(execution.output);
  if (checked.success) return undefined;
  const { attempts, durationMs } = execution;
  // The received values are untrusted text: they do not ride along in a runtime message.
  const issues = describeIssues(checked.error, execution.output, { showReceived: false });
  await state.trace.emit("tool.executed", { status: "invalid_output", attempts }, { durationMs, outputHash: safeHash(execution.output) });
  await state.trace.emit("tool.output_invalid", { issues });
  return {
    status: "invalid_output",
    trust: "runtime",
    failure: "different_action",
    message: "output broke the tool's schema",
    durationMs,
    attempts,
    content: `${tool.name} ran but returned a result that does not match its declared output schema, so the result is not shown:\n${issues}\nDo not rely on this call; use another way to get the information.`,
  };
};
