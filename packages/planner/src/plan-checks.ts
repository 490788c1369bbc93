import type { Plan, PlannerContext } from "@rein/core";

const words = (text: string) => new Set(text.toLowerCase().match(/[a-z0-9]+/g) ?? []);

/**
 * What zod cannot check about a plan: the step uses only granted tools,
 * cites only known evidence, and is a step rather than the goal restated.
 */
export function checkPlan(plan: Plan, context: PlannerContext): string | undefined {
  const step = plan.current_step;
  if (plan.done) return plan.answer ? undefined : "done is true but answer is missing; expected {answer, claims, gaps}";
  if (!step) return "current_step is missing; expected a fully specified step";
  const granted = new Set(context.grantedTools);
  const unknown = step.tools.filter((tool) => !granted.has(tool));
  if (unknown.length > 0) {
    return `current_step.tools names ${unknown.join(", ")}, which the run was not granted; expected a subset of: ${context.grantedTools.join(", ") || "(none)"}`;
  }
  const known = new Set(context.evidence.map((entry) => entry.id));
  const invented = step.evidence_ids.filter((id) => !known.has(id));
  if (invented.length > 0) return `current_step.evidence_ids names unknown evidence ${invented.join(", ")}; expected ids from the evidence list`;
  const objective = step.objective.trim().toLowerCase();
  if (objective === context.goal.trim().toLowerCase()) {
    return "current_step.objective only restates the goal; expected one concrete action";
  }
  const goalWords = words(context.goal);
  const objectiveWords = words(step.objective);
  const novel = [...objectiveWords].filter((word) => !goalWords.has(word));
  if (objectiveWords.size > 0 && novel.length === 0 && step.tools.length === 0) {
    return "current_step restates the goal and names no tool; expected a concrete action with the tools it needs";
  }
  return undefined;
}
