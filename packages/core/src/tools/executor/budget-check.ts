import type { StepExecutionContext } from "../tool-executor.ts";

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
