export { plan, type PlannerDeps, type PlanOutcome } from "./planner.ts";
export { startPlanConsumer, type PlanConsumerOptions } from "./plan-consumer.ts";
export { checkPlan } from "./plan-checks.ts";
export { PLANNER_SYSTEM, renderPlannerContext } from "./planner-prompt.ts";
export { answerContextRequest, ContextAnswer, renderContextRequest } from "./context-answer.ts";
