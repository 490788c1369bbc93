import type { StepExecutionContext } from "../../tool-executor.ts";
import { type CallStage, need } from "../call-in-progress.ts";

/** No new call starts once the step has spent its calls or passed its deadline. */
export const checkBudget: CallStage = async (state) => {
  const { context, trace } = state;
  const exhausted = budgetExhausted(context, state.deps.now());
  if (!exhausted) return undefined;
  await trace.emit("tool.budget_exhausted", {
    reason: exhausted,
    callsSoFar: context.callsSoFar,
    maxToolCalls: context.budget.maxToolCalls,
  });
  return {
    status: "budget_exhausted",
    trust: "runtime",
    failure: "fatal",
    message: exhausted,
    content: `${need(state, "tool").name} was not executed: ${exhausted}. Finish the step with what you have.`,
  };
};

/** Why no new call may start, or undefined when the step still has budget. */
export function budgetExhausted(context: StepExecutionContext, now: number): string | undefined {
  if (context.callsSoFar >= context.budget.maxToolCalls) {
    return `this step has used all ${context.budget.maxToolCalls} of its tool calls`;
  }
  if (now >= context.budget.deadline) {
    return `this step's deadline (${new Date(context.budget.deadline).toISOString()}) has passed`;
  }
  return undefined;
}
