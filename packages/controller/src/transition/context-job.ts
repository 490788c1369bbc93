import type { RunState, StepState } from "@rein/contracts/run";
import type { ContextJob } from "@rein/contracts/messages";
import { evidenceLine } from "./evidence-line.ts";
import { packetBodyOf, type PacketSettings } from "./packet-body.ts";

/** The planner's job for a step's question to its parent: what the step asked, and what it was handed and could be. */
export function contextJobOf(state: RunState, step: StepState, question: string, settings: PacketSettings): ContextJob {
  return {
    runId: state.runId,
    stepId: step.stepId,
    attempt: step.attempt,
    resumes: step.resumes,
    question,
    goal: state.goal.text,
    task: `${step.spec.title}: ${step.spec.objective}`,
    handed: packetBodyOf(state, step, settings).evidence.map((entry) => entry.id),
    evidence: state.evidence.map(evidenceLine),
  };
}
