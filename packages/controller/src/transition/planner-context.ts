import type { RunState } from "@rein/contracts/run";
import type { PlanJob, PlannerContext } from "@rein/contracts/messages";
import { evidenceLine } from "./evidence-line.ts";

const MAX_EVIDENCE_IN_DIGEST = 40;

/** The digest the planner sees: completed steps and evidence summaries, never transcripts. */
export function plannerContextOf(state: RunState, options: { maxParallel?: number } = {}): PlannerContext {
  const last = state.verdicts.at(-1);
  return {
    goal: state.goal.text,
    goalKind: state.goal.kind,
    grantedTools: state.goal.tools.map((grant) => grant.name),
    checkCommands: state.goal.tools.find((grant) => grant.name === "run_command")?.scope.commands,
    completedSteps: state.steps
      // Children are part of their parent's work; the planner plans top-level steps.
      .filter((step) => step.parentStepId === null && (step.phase === "completed" || step.phase === "failed"))
      .map((step) => ({ stepId: step.stepId, title: step.spec.title, decision: step.decision, summary: step.summary ?? "" })),
    evidence: state.evidence.slice(-MAX_EVIDENCE_IN_DIGEST).map(evidenceLine),
    lastVerdict: last ? { decision: last.decision, reasons: last.reasons, feedback: last.feedback } : undefined,
    lessons: [],
    instruction: state.instruction,
    knownEvidenceIds: state.evidence.map((entry) => entry.id),
    // Offered only when the goal asks for fan-out: the planner's prompt and schema of every other run stay as they were.
    ...(state.goal.maxParallel !== undefined && (options.maxParallel ?? 1) > 1 ? { maxParallel: options.maxParallel } : {}),
  };
}

export function planJobOf(state: RunState, options: { maxParallel?: number } = {}): PlanJob {
  const override = state.goal.models.planner;
  return {
    runId: state.runId,
    planNo: state.planCount,
    context: plannerContextOf(state, options),
    modelOverride: override ? { provider: override.provider, model: override.model } : undefined,
  };
}
