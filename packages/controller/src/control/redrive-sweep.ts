import type { StepResult } from "@rein/contracts";
import { isTerminal, type RunState } from "@rein/contracts/run";
import { ControlEvent } from "@rein/contracts/messages";
import { type AwaitedJob, awaitedJobsOf, type ControllerRuntime, jobIds, QUEUE_NAMES, resultEventIds } from "@rein/runtime";
import { DEADLINE_JOB, deadlineJobId } from "../transition/lost-jobs.ts";
import { RunDeadlines } from "./run-deadlines.ts";

export interface SweepOptions {
  /** Who sweeps: the value of the lease while this sweep holds it. */
  holder: string;
  /** The time quiet is judged by (ms since the epoch). @defaultValue Date.now() */
  now?: number;
}

export interface SweepReport {
  /** False when another controller holds the lease: this one checked nothing. */
  swept: boolean;
  /** How many runs had their jobs checked. */
  checked: number;
  /** The runs reported to the controller with jobs gone from their queues. */
  lost: { runId: string; jobs: string[] }[];
}

/**
 * One pass of the re-drive sweep. Only the controller holding the lease
 * (SET NX PX, for one `redrive.intervalMs`) sweeps; it takes the runs whose
 * state has stood still for `redrive.quietMs`, at most `runsPerSweep`, the
 * least recently checked first, and checks that every job each waits for
 * (and its deadline, still to fire or fired) still has its hash in its queue: waiting, delayed,
 * running, or finished and kept (`retention.jobs`), or is running in a
 * process that took it in hand (LocalHandoff) with its lease held. A run with jobs gone is
 * sent a `jobs.lost` event naming them and the version it was seen at, whose
 * id is derived from that version: a second sweep of the same run at the
 * same version (two controllers, a lease that lapsed mid-sweep) sends the
 * same event, and the control queue keeps one. The controller decides, on the
 * state it holds then, what to send again.
 */
export async function sweepLostJobs(runtime: ControllerRuntime, options: SweepOptions): Promise<SweepReport> {
  const { redrive } = runtime.config;
  const now = options.now ?? Date.now();
  const leased = await runtime.redis.set(runtime.keys.redriveLease(), options.holder, "PX", redrive.intervalMs, "NX");
  const report: SweepReport = { swept: leased === "OK", checked: 0, lost: [] };
  if (!report.swept) return report;
  const quietSince = now - redrive.quietMs;
  for (const runId of await runtime.runs.active.stampedBefore(quietSince, redrive.runsPerSweep)) {
    const state = await runtime.runs.get(runId).catch((error: unknown) => {
      // One run that cannot be read must not stop the sweep of the others.
      runtime.logger.warn({ err: error, runId }, "re-drive sweep could not read a run; it is checked again on a later sweep");
    });
    if (state === undefined) {
      await runtime.runs.active.checked(runId, now);
    } else if (!state || isTerminal(state.status)) {
      await runtime.runs.active.forget(runId);
    } else if (Date.parse(state.updatedAt) > quietSince) {
      // The index was behind the state (its write lost or late): quiet is the state's to say.
      await runtime.runs.active.record(state);
    } else {
      report.checked += 1;
      const jobs = await reportLost(runtime, state);
      if (jobs.length > 0) report.lost.push({ runId, jobs });
      await runtime.runs.active.checked(runId, now);
    }
  }
  return report;
}

/** Reports the jobs `state` waits for that are gone from their queues; returns their keys. */
async function reportLost(runtime: ControllerRuntime, state: RunState): Promise<string[]> {
  if (state.planCount === 0) return (await resubmitIfLost(runtime, state)) ? [SUBMITTED_JOB] : [];
  const lost = await lostJobsOf(runtime, state);
  if (lost.length === 0) return [];
  const jobs = lost.map((job) => job.key);
  await runtime.queues.sendControl({
    type: "jobs.lost",
    eventId: `lost-${state.runId}-v${state.version}`,
    runId: state.runId,
    jobs,
    cause: "vanished",
    reason: `not in its queue (neither waiting, delayed, running nor finished) after the run stood still for over ${runtime.config.redrive.quietMs} ms`,
    seenVersion: state.version,
    stepResults: await stepResultsOf(runtime, state, lost),
  });
  return jobs;
}

const SUBMITTED_JOB = "goal.submitted";

/**
 * A run the controller never took in waits for its `goal.submitted` event,
 * which intake sent; one gone from the control queue is sent again as it
 * was (the same id), and the run's trace says so.
 */
async function resubmitIfLost(runtime: ControllerRuntime, state: RunState): Promise<boolean> {
  const eventId = `submitted-${state.runId}`;
  const jobId = jobIds.control(eventId);
  if ((await runtime.redis.exists(runtime.keys.job(QUEUE_NAMES.control, jobId, state.runId))) === 1) return false;
  const reason = `not in the control queue after the run stood still for over ${runtime.config.redrive.quietMs} ms, never taken in by a controller`;
  await runtime.trace.append({
    runId: state.runId,
    kind: "run.redriven",
    payload: { cause: "vanished", reason, jobs: [{ key: SUBMITTED_JOB, queue: QUEUE_NAMES.control, jobId, resend: 1 }] },
  });
  await runtime.queues.sendControl({ type: "goal.submitted", eventId, runId: state.runId });
  return true;
}

/** A job `state` waits for whose hash is gone from its queue, or its deadline timer. */
type LostJob = Pick<AwaitedJob, "key"> & { awaited?: AwaitedJob };

async function lostJobsOf(runtime: ControllerRuntime, state: RunState): Promise<LostJob[]> {
  const awaited = awaitedJobsOf(state);
  const [present, deadline] = await Promise.all([
    Promise.all(awaited.map((job) => jobKept(runtime, state.runId, job))),
    deadlineKept(runtime, state.runId),
  ]);
  const lost: LostJob[] = awaited.filter((_job, index) => !present[index]).map((job) => ({ key: job.key, awaited: job }));
  return deadline ? lost : [...lost, { key: DEADLINE_JOB }];
}

/** Whether an awaited job is in its queue, or running in a process that took it in hand (its hand-off lease held). */
async function jobKept(runtime: ControllerRuntime, runId: string, job: AwaitedJob): Promise<boolean> {
  if ((await runtime.redis.exists(runtime.keys.job(job.queue, job.jobId, runId))) === 1) return true;
  return runtime.handoffs.held(runId, job.jobId);
}

/** Whether the run's deadline is still to fire (RunDeadlines) or has fired (its event is in the control queue). */
async function deadlineKept(runtime: ControllerRuntime, runId: string): Promise<boolean> {
  if (await new RunDeadlines(runtime).has(runId)) return true;
  return (await runtime.redis.exists(runtime.keys.job(QUEUE_NAMES.control, deadlineJobId(runId), runId))) === 1;
}

/**
 * The results the lost evaluations of steps judge. The state does not keep
 * them; the step's `step.finished` event does, while its finished job is
 * kept: on the evaluate queue, where the worker sent it, or on the control
 * queue, where an evaluator without the packet key passed it on. One not
 * found is left out, and the controller escalates that evaluation instead of sending it.
 */
async function stepResultsOf(runtime: ControllerRuntime, state: RunState, lost: readonly LostJob[]): Promise<StepResult[]> {
  const results: StepResult[] = [];
  for (const { awaited } of lost) {
    if (awaited?.job.kind !== "evaluate") continue;
    const { stepId, attempt } = awaited.job;
    const step = state.steps.find((candidate) => candidate.stepId === stepId);
    if (!step) continue;
    const finished = resultEventIds.stepFinished(jobIds.step(state.runId, stepId, attempt, step.resumes));
    const data =
      (await runtime.redis.hget(runtime.keys.job(QUEUE_NAMES.evaluate, jobIds.stepResult(finished), state.runId), "data")) ??
      (await runtime.redis.hget(runtime.keys.job(QUEUE_NAMES.control, jobIds.control(finished), state.runId), "data"));
    const event = data === null ? undefined : ControlEvent.safeParse(JSON.parse(data)).data;
    if (event?.type === "step.finished" && event.attempt === attempt) results.push(event.result);
  }
  return results;
}
