import { z } from "zod";
import { type RunStatus, type StepPhase, stopsSteps } from "../contracts/run-state.ts";
import { jobIds } from "./queue-names.ts";

/** A job a role is about to run, as intake checks it against its run. */
export type IntakeJob =
  | { kind: "step"; jobId: string; runId: string; stepId: string; attempt: number }
  | { kind: "plan"; runId: string; planNo: number }
  | { kind: "context"; runId: string; stepId: string; attempt: number }
  | { kind: "evaluate"; runId: string; stepId: string; attempt: number }
  | { kind: "final"; runId: string; attempt: number };

/** What of a run decides which jobs it waits for (a RunState is one). */
export interface AwaitingRun {
  runId: string;
  status: RunStatus;
  planCount: number;
  steps: readonly { stepId: string; attempt: number; phase: StepPhase; resumes: number; awaitingContext?: string }[];
  proposal?: { attempt: number; phase: string };
}

/** The `awaiting` field of a run's hash as read back: the keys of the jobs the run waits for. */
export const AwaitedJobs = z.array(z.string());

/** The key a job is known by in a run's `awaiting` field. */
export function awaitedKey(job: IntakeJob): string {
  switch (job.kind) {
    case "step":
      return `step ${job.stepId} ${job.attempt} ${job.jobId}`;
    case "plan":
      return `plan ${job.planNo}`;
    case "context":
    case "evaluate":
      return `${job.kind} ${job.stepId} ${job.attempt}`;
    case "final":
      return `final ${job.attempt}`;
  }
}

/**
 * The keys of every job `run` waits for now, by the rules intake applies to
 * the whole state (job-intake.ts): the run store writes them beside the
 * state in the same compare-and-set, so a role's intake answers "is this
 * job still wanted" from one short field instead of reading and parsing
 * the whole state. Empty once the run's status stops its steps.
 */
export function awaitedJobs(run: AwaitingRun): string[] {
  const keys: string[] = [];
  if (stopsSteps(run.status)) return keys;
  if (run.status === "planning") keys.push(awaitedKey({ kind: "plan", runId: run.runId, planNo: run.planCount }));
  for (const step of run.steps) {
    const { stepId, attempt } = step;
    if (step.phase === "dispatched" || step.phase === "executing") {
      keys.push(awaitedKey({ kind: "step", runId: run.runId, stepId, attempt, jobId: jobIds.step(run.runId, stepId, attempt, step.resumes) }));
    }
    if (step.awaitingContext !== undefined) keys.push(awaitedKey({ kind: "context", runId: run.runId, stepId, attempt }));
    if (run.status === "evaluating" && step.phase === "evaluating") keys.push(awaitedKey({ kind: "evaluate", runId: run.runId, stepId, attempt }));
  }
  if (run.status === "evaluating" && run.proposal?.phase === "evaluating") keys.push(awaitedKey({ kind: "final", runId: run.runId, attempt: run.proposal.attempt }));
  return keys;
}
