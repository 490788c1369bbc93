import { type PacketBody, type RunState, type StepState, StepBudget, type ToolGrant } from "@rein/core";
import { evidenceLine } from "./evidence-line.ts";

export interface PacketSettings {
  now: Date;
  ttlMs: number;
}

/**
 * The packet body for a step: its task contract, the evidence the planner
 * chose, and the run's grants narrowed to the tools the step asked for.
 */
export function packetBodyOf(state: RunState, step: StepState, settings: PacketSettings): PacketBody {
  const wanted = new Set(step.spec.tools);
  const surface: ToolGrant[] = step.grants ?? state.goal.tools.filter((grant) => wanted.has(grant.name));
  const budget = StepBudget.parse(step.spec.budget);
  const chosen = new Set(step.spec.evidence_ids);
  const evidence = state.evidence.filter((entry) => chosen.has(entry.id)).map(evidenceLine);
  return {
    schemaVersion: 1,
    runId: state.runId,
    stepId: step.stepId,
    attempt: step.attempt,
    parentStepId: step.parentStepId,
    depth: step.depth,
    task: {
      title: step.spec.title,
      objective: step.spec.objective,
      acceptanceCriteria: step.spec.acceptance_criteria,
      outputContract: step.spec.output_contract,
      feedback: step.feedback,
    },
    evidence,
    lessons: [],
    surface,
    policy: state.goal.policy,
    budget,
    modelRole: "worker",
    bounds: step.bounds ?? { surface: state.goal.tools, budget },
    resume: step.resumeInput,
    issuedAt: settings.now.toISOString(),
    expiresAt: new Date(settings.now.getTime() + settings.ttlMs).toISOString(),
  };
}
