import type { PlannerContext } from "@rein/core";

export const PLANNER_SYSTEM = `You are the planner of Rein, a harness for multi-agent work.
You cut a goal into ONE concrete next step at a time (a lazy plan).
Reply with JSON only, matching the Plan schema:
- current_step: the one step to do now, fully specified: a short title, an objective that names the action,
  acceptance_criteria (prefer checks code can run: {"kind":"command","argv":[...]} or {"kind":"file_contains",...}),
  tools (a subset of the granted tools), evidence_ids to hand over (from the evidence list), output_contract, budget.
- next_steps: titles only of what you expect to follow.
- risks: what could go wrong.
- done: true only when the goal is met by the evidence; then current_step is null and answer holds the final answer
  as {"answer": "...", "claims": [{"text": "...", "evidence": ["obs_..."]}], "gaps": []}.
Never restate the goal as a step, and name the action (read, run, query, change…) the step performs.
Never invent evidence ids. Lessons from earlier runs say what failed and what worked on similar tasks: use them.
An instruction from a person overrides your own plan.`;

/** The planner's user message. Its first line is stable so scripts and readers can find their place. */
export function renderPlannerContext(context: PlannerContext): string {
  const lines: string[] = [];
  lines.push(`Completed steps: ${context.completedSteps.length === 0 ? "none" : context.completedSteps.length}`);
  lines.push(`Goal: ${context.goal}`);
  lines.push(`Granted tools: ${context.grantedTools.join(", ") || "none"}`);
  if (context.completedSteps.length > 0) {
    lines.push("Plan history:");
    for (const step of context.completedSteps) {
      lines.push(`- ${step.stepId} "${step.title}" → ${step.decision ?? "pending"}: ${step.summary}`);
    }
  }
  if (context.lastVerdict) {
    const { decision, reasons, feedback } = context.lastVerdict;
    lines.push(`Latest verdict: ${decision} (${reasons.join("; ")})${feedback ? ` feedback: ${feedback}` : ""}`);
    if (decision === "replan" || decision === "escalate") {
      lines.push("Replan: the last step did not work as specified. Revise the plan from the latest evidence below; do not specify that step again unchanged.");
    }
  }
  if (context.evidence.length > 0) {
    lines.push("Evidence (id: summary):");
    for (const entry of context.evidence) lines.push(`- ${entry.id}: ${entry.summary}`);
  }
  if (context.lessons.length > 0) {
    lines.push("Lessons from earlier runs:");
    for (const lesson of context.lessons) lines.push(`- [${lesson.id}] ${lesson.text}`);
  }
  if (context.instruction) lines.push(`Instruction from a person: ${context.instruction}`);
  return lines.join("\n");
}
