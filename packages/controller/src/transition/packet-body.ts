import { type PacketBody, StepBudget, type ToolGrant, totalTokens, zeroUsage } from "@rein/contracts";
import type { RunState, StepState } from "@rein/contracts/run";
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
  const budget = withinRun(StepBudget.parse(step.spec.budget), state, step, settings.now);
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

/**
 * A step's budget no larger than what its run has left: a planner may ask
 * for more, never get it. What this step itself already spent (a resumed
 * step reports its usage cumulatively) is its own, so it stays in its share.
 */
function withinRun(budget: StepBudget, state: RunState, step: StepState, now: Date): StepBudget {
  const run = state.goal.budget;
  const own = step.attemptUsage ?? zeroUsage();
  const tokensLeft = run.maxTokens - state.spent.tokens + totalTokens(own);
  const costLeft = run.maxCostUsd - state.spent.costUsd + own.costUsd;
  const wallLeft = Date.parse(state.createdAt) + run.maxWallMs - now.getTime();
  return {
    ...budget,
    maxTokens: Math.max(1, Math.min(budget.maxTokens, tokensLeft)),
    maxMs: Math.max(1, Math.min(budget.maxMs, wallLeft)),
    maxCostUsd: Math.max(0, Math.min(budget.maxCostUsd ?? costLeft, costLeft)),
  };
}
