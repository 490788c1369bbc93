import { type CallStage, need } from "../call-in-progress.ts";
import { describeIssues } from "../describe-issues.ts";
import { refuse } from "../refuse.ts";

/** The arguments against the tool's own schema; the model is told field by field what to fix. */
export const validateInput: CallStage = async (state) => {
  const tool = need(state, "tool");
  const parsed = tool.input.safeParse(state.call.input);
  if (!parsed.success) {
    const issues = describeIssues(parsed.error, state.call.input);
    return refuse(
      state,
      "tool.input_invalid",
      "invalid_input",
      `The arguments for ${tool.name} are invalid, so the call was not executed:\n${issues}\nCorrect these fields and call again.`,
      { issues: parsed.error.issues.map((issue) => ({ path: issue.path.map(String), code: issue.code, message: issue.message })) },
    );
  }
  state.input = { args: parsed.data };
  return undefined;
};
