import { z } from "zod";
import { FINAL_ANSWER_STEP_ID, type RunStatus, type StepPhase, stopsSteps } from "@rein/contracts/run";
import { jobIds, QUEUE_NAMES, stepQueueName } from "./queue-names.ts";

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
  /** The build it was started under: its step jobs are in that build's step queue. */
  build?: string;
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

/** A job a run waits for: its key in the run's `awaiting` field, and its id in its queue. */
export interface AwaitedJob {
  key: string;
  /** The queue's name: a role's, or a build's step queue (`step.<build>`). */
  queue: string;
  jobId: string;
  job: IntakeJob;
}

/**
 * Every job `run` waits for now, by the rules intake applies to the whole
 * state (job-intake.ts). Empty once the run's status stops its steps.
 */
export function awaitedJobsOf(run: AwaitingRun): AwaitedJob[] {
  const { runId } = run;
  const awaited: AwaitedJob[] = [];
  const add = (job: IntakeJob, queue: string, jobId: string) => awaited.push({ key: awaitedKey(job), queue, jobId, job });
  if (stopsSteps(run.status)) return awaited;
  // Plan 0 is no job: a run not yet submitted to the controller waits for its `goal.submitted` event.
  if (run.status === "planning" && run.planCount > 0)
    add({ kind: "plan", runId, planNo: run.planCount }, QUEUE_NAMES.plan, jobIds.plan(runId, run.planCount));
  for (const step of run.steps) {
    const { stepId, attempt } = step;
    if (step.phase === "dispatched" || step.phase === "executing") {
      const jobId = jobIds.step(runId, stepId, attempt, step.resumes);
      add({ kind: "step", runId, stepId, attempt, jobId }, stepQueueName(run.build), jobId);
    }
    if (step.awaitingContext !== undefined)
      add({ kind: "context", runId, stepId, attempt }, QUEUE_NAMES.plan, jobIds.context(runId, stepId, attempt, step.resumes));
    // Not only while the run is evaluating: a step of a parallel group is judged while its siblings still run.
    if (step.phase === "evaluating")
      add({ kind: "evaluate", runId, stepId, attempt }, QUEUE_NAMES.evaluate, jobIds.evaluate(runId, stepId, attempt));
  }
  const proposal = run.proposal;
  if (run.status === "evaluating" && proposal?.phase === "evaluating") {
    add(
      { kind: "final", runId, attempt: proposal.attempt },
      QUEUE_NAMES.evaluate,
      jobIds.evaluate(runId, FINAL_ANSWER_STEP_ID, proposal.attempt),
    );
  }
  return awaited;
}

/**
 * The keys of every job `run` waits for now: the run store writes them
 * beside the state in the same compare-and-set, so a role's intake answers
 * "is this job still wanted" from one short field instead of reading and
 * parsing the whole state.
 */
export function awaitedJobs(run: AwaitingRun): string[] {
  return awaitedJobsOf(run).map((awaited) => awaited.key);
}
