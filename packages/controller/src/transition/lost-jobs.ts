import { ReinError } from "@rein/contracts";
import type { RunState, StepState } from "@rein/contracts/run";
import type { ControlEvent, ControllerEffect } from "@rein/contracts/messages";
import { type AwaitedJob, awaitedJobsOf, jobIds, QUEUE_NAMES } from "@rein/runtime";
import { contextJobOf } from "./context-job.ts";
import { finalAnswerJobOf, stepEvaluateRequestOf } from "./evaluate-jobs.ts";
import { packetBodyOf } from "./packet-body.ts";
import { planJobOf } from "./planner-context.ts";
import type { Draft } from "./run-draft.ts";

type JobsLost = Extract<ControlEvent, { type: "jobs.lost" }>;

/** How a `jobs.lost` event names the run's deadline timer, which no `awaiting` key covers. */
export const DEADLINE_JOB = "deadline";

/** The control job that fires a run's deadline. */
export const deadlineJobId = (runId: string): string => jobIds.control(`deadline-${runId}`);

/** A lost job as it is sent again: the effect that sends it, and what the trace says of it. */
interface Resend {
  effect: ControllerEffect;
  traced: { key: string; queue: string; jobId: string; resend: number };
}

/**
 * Jobs the run waits for were lost: each still awaited is sent again with
 * the same job id and the data the outbox sent (rebuilt from the state, a
 * packet signed afresh), traced as `run.redriven`. The run escalates instead
 * when a job was already sent again `resendsPerJob` times, or cannot be
 * rebuilt (a step's evaluation whose result is gone with it); nothing is
 * sent then, as an escalated run runs nothing. A job reported lost that the
 * run no longer waits for (its result arrived meanwhile) is not sent.
 */
export function resendLostJobs(draft: Draft, event: JobsLost): string | undefined {
  const { state } = draft;
  // What the sweep saw is stale once the run moved: its next sweep looks again.
  if (event.seenVersion !== undefined && event.seenVersion !== state.version)
    return `the run changed since version ${event.seenVersion}, when its jobs were found lost`;
  // Its deadline is scheduled when the controller takes the run in; until then nothing else is awaited either.
  if (state.planCount === 0) return "the run has not been taken in by the controller yet";
  const awaited = awaitedJobsOf(state);
  const lost = awaited.filter((job) => event.jobs.includes(job.key));
  const deadlineLost = event.jobs.includes(DEADLINE_JOB);
  if (lost.length === 0 && !deadlineLost) return "none of the jobs reported lost is awaited any more";
  const limit = draft.settings.resendsPerJob;
  // Counts of jobs the run no longer waits for go: their ids never come back.
  const stillAwaited = new Set(awaited.map((job) => job.jobId));
  const resends = Object.fromEntries(Object.entries(state.resends ?? {}).filter(([jobId]) => stillAwaited.has(jobId)));
  const planned: Resend[] = [];
  for (const job of lost) {
    const sent = resends[job.jobId] ?? 0;
    if (sent >= limit) {
      return escalate(draft, job, [
        `the ${described(job)} was lost: ${event.reason}; it was sent again ${sent} time(s) before, as many as config redrive.resendsPerJob allows. ${whatToCheck(event.cause, job)}`,
      ]);
    }
    const effect = rebuilt(draft, job, event);
    if (!effect) {
      return escalate(draft, job, [
        `the ${described(job)} was lost: ${event.reason}; it cannot be sent again, as the step's result was only in it and in its step.finished event, which is no longer in the control queue (see retention.jobs)`,
      ]);
    }
    planned.push({ effect, traced: { key: job.key, queue: job.queue, jobId: job.jobId, resend: sent + 1 } });
  }
  if (deadlineLost) {
    // A timer runs nothing when it fires early or twice, so it is sent again however often it is lost.
    const delayMs = Math.max(0, Date.parse(state.createdAt) + state.goal.budget.maxWallMs - draft.settings.now.getTime());
    planned.push({
      effect: { type: "schedule_deadline", delayMs },
      traced: { key: DEADLINE_JOB, queue: QUEUE_NAMES.control, jobId: deadlineJobId(state.runId), resend: 1 },
    });
  }
  for (const { effect, traced } of planned) {
    draft.effect(effect);
    if (traced.key !== DEADLINE_JOB) resends[traced.jobId] = traced.resend;
  }
  state.resends = resends;
  draft.trace({
    kind: "run.redriven",
    payload: { cause: event.cause, reason: event.reason, jobs: planned.map((resend) => resend.traced) },
  });
  return undefined;
}

/** The effect that sends `job` as the outbox did, or undefined when the state cannot rebuild it. */
function rebuilt(draft: Draft, job: AwaitedJob, event: JobsLost): ControllerEffect | undefined {
  const { state, settings } = draft;
  const packet = { now: settings.now, ttlMs: settings.packetTtlMs };
  const intake = job.job;
  switch (intake.kind) {
    case "plan":
      return { type: "enqueue_plan", job: planJobOf(state) };
    case "step":
      return { type: "dispatch_step", jobId: job.jobId, body: packetBodyOf(state, stepOf(state, intake.stepId), packet) };
    case "context": {
      const step = stepOf(state, intake.stepId);
      return { type: "enqueue_context_request", job: contextJobOf(state, step, step.awaitingContext ?? "", packet) };
    }
    case "evaluate": {
      const step = stepOf(state, intake.stepId);
      const result = event.stepResults.some((candidate) => candidate.stepId === step.stepId && candidate.attempt === step.attempt);
      return result
        ? { type: "enqueue_evaluate", job: stepEvaluateRequestOf(state, step, step.parentStepId === null ? "step" : "child") }
        : undefined;
    }
    case "final": {
      const proposal = state.proposal;
      return proposal
        ? { type: "enqueue_evaluate", job: finalAnswerJobOf(state, proposal.answer, proposal.attempt, proposal.feedback) }
        : undefined;
    }
  }
}

/** The step an awaited job names: awaitedJobsOf found it in this state. */
function stepOf(state: RunState, stepId: string): StepState {
  const step = state.steps.find((candidate) => candidate.stepId === stepId);
  if (!step) throw new ReinError("contract_invalid", `run ${state.runId} awaits a job of step ${stepId}, which it does not have`);
  return step;
}

/** Stops the run for a person: what the lost job was for is given up, so a reply plans afresh rather than waiting on it. */
function escalate(draft: Draft, job: AwaitedJob, reasons: string[]): undefined {
  const { state } = draft;
  const intake = job.job;
  if (intake.kind === "final" && state.proposal) state.proposal.phase = "rejected";
  if (intake.kind === "step" || intake.kind === "context" || intake.kind === "evaluate") {
    const step = stepOf(state, intake.stepId);
    step.phase = "failed";
    step.awaitingContext = undefined;
  }
  draft.escalate(
    reasons.map(
      (reason) => `${reason}. Its evidence so far is in the run; reply to go on from it: rein reply ${state.runId} "<instruction>"`,
    ),
  );
  return undefined;
}

function described(job: AwaitedJob): string {
  const intake = job.job;
  switch (intake.kind) {
    case "plan":
      return `plan ${intake.planNo} job`;
    case "step":
      return `job of step ${intake.stepId} (attempt ${intake.attempt})`;
    case "context":
      return `planner's job for the question of step ${intake.stepId} (attempt ${intake.attempt})`;
    case "evaluate":
      return `evaluation of step ${intake.stepId} (attempt ${intake.attempt})`;
    case "final":
      return `evaluation of the final answer (proposal ${intake.attempt})`;
  }
}

const ROLE_OF_JOB: Record<AwaitedJob["job"]["kind"], string> = {
  plan: "planner",
  context: "planner",
  step: "step worker",
  evaluate: "evaluator",
  final: "evaluator",
};

function whatToCheck(cause: JobsLost["cause"], job: AwaitedJob): string {
  if (cause === "worker_lost")
    return `Check the ${ROLE_OF_JOB[job.job.kind]} processes' logs for crashes, out-of-memory kills or lost Redis connections, and fix the cause`;
  return "Check the Redis failovers around then (a replica promoted before it had a write loses it; see docs/scaling.md, Redis Cluster) and anything else that deletes keys under this prefix";
}
