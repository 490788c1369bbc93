import type { Queue } from "bullmq";
import { FINAL_ANSWER_STEP_ID, type RunState } from "@rein/contracts/run";
import { ApprovalStore, type ControllerRuntime, jobIds, QUEUE_NAMES, resultEventIds } from "@rein/runtime";
import { checkpointKeys, expireWithin, forgetExpiredRuns, noteRunExpiry, runKeysOf } from "@rein/runtime/keys";
import { RunDeadlines } from "./run-deadlines.ts";

/**
 * What is left of a run that ended: its keys (its intent and outcome
 * records and its approvals among them) expire after
 * `retention.runTtlSeconds` at the latest, its deadline is forgotten, and its
 * pending approval expiries leave the control queue instead of waiting there
 * to be ignored.
 * The run index notes when the run's keys expire, and forgets the runs whose
 * keys are gone by now.
 * What only a running step reads (its checkpoint but its owner, the run's tool cache) and
 * the finished jobs that carried a step's whole result (its `step.finished`
 * event, on the evaluate queue or passed on to the control queue, and its evaluate job) go at once: nothing reads them once the run
 * has ended, and they were most of what a long step left behind. Its trace
 * is packed (retention.traceCompaction): read as before, a fraction of the bytes.
 * Idempotent, as every effect: a replay sets the same TTLs and finds the
 * keys and jobs gone.
 */
export async function retireRun(runtime: ControllerRuntime, state: RunState): Promise<void> {
  // A step's owner key stays (it expires with the run): a worker whose step the run's end cut off
  // records where it stopped, fenced by that key, and may still be writing it now.
  const checkpoints = state.steps
    .flatMap((step) => checkpointKeys(runtime.keys, state.runId, step.stepId))
    .filter((key) => !key.endsWith(":owner"));
  const working = new Set([runtime.keys.toolCache(state.runId), ...checkpoints]);
  const { runTtlSeconds, traceCompaction } = runtime.config.retention;
  const now = Date.now();
  // The parts touch disjoint keys, so they go out together: a retirement is a few round trips, not one per part.
  // Compaction keeps the trace's TTL, so it may land before or after the expiry.
  const [runKeys] = await Promise.all([
    runKeysOf(runtime.redis, runtime.keys, state),
    // One slot: every one of them carries the run's hash tag.
    runtime.redis.del(...working),
    traceCompaction.enabled ? runtime.trace.compact(state.runId, traceCompaction) : undefined,
    new ApprovalStore(runtime.redis, runtime.keys, { ttlSeconds: runtime.config.approvals.ttlSeconds }).retireRun(
      state.runId,
      runTtlSeconds,
    ),
    noteRunExpiry(runtime.redis, runtime.keys, state.runId, now + runTtlSeconds * 1000),
    forgetExpiredRuns(runtime.redis, runtime.keys, now),
    removeFinishedJobs(runtime, state),
  ]);
  await expireWithin(
    runtime.redis,
    runKeys.filter((key) => !working.has(key)),
    runTtlSeconds,
  );
  // Last: a run without a deadline is one whose retirement is done.
  await new RunDeadlines(runtime).forget(state.runId);
}

/** Removes the finished jobs that carried a run's step results, and any of its timers and evaluations still queued. */
async function removeFinishedJobs(runtime: ControllerRuntime, state: RunState): Promise<void> {
  const timers = state.pendingApprovals.map((approvalId) => `approval-expiry-${approvalId}`);
  const control = runtime.queues.ofRun(QUEUE_NAMES.control, state.runId);
  const evaluate = runtime.queues.ofRun(QUEUE_NAMES.evaluate, state.runId);
  const finished = stepJobIdsOf(state).map((stepJobId) => resultEventIds.stepFinished(stepJobId));
  // Most of these were never queued (an evaluation handed over in process, a timer that fired, a result no
  // keyless evaluator passed on): one EXISTS of them all, in the run's queue shard's slot, before each is looked at.
  const seldomQueued: QueuedJob[] = [
    ...timers.map((eventId) => ({ queue: control, jobId: jobIds.control(eventId) })),
    ...finished.map((eventId) => ({ queue: control, jobId: jobIds.control(eventId) })),
    ...evaluateJobIdsOf(state).map((jobId) => ({ queue: evaluate, jobId })),
  ];
  // A failed check looks at each, as before: removals are best effort, and their own failures are ignored too.
  const anyQueued = async () =>
    seldomQueued.length > 0 &&
    (await runtime.redis.exists(...seldomQueued.map(({ queue, jobId }) => queue.toKey(jobId))).catch(() => 1)) > 0;
  const remove = (jobs: readonly QueuedJob[]) =>
    Promise.all(jobs.map(({ queue, jobId }) => removeIfQueued(runtime.redis, queue, jobId).catch(() => 0)));
  // The results' own checks go out beside the one EXISTS. An active job is the event being applied right now:
  // it completes and goes with the finished jobs.
  await Promise.all([
    remove(finished.map((eventId) => ({ queue: evaluate, jobId: jobIds.stepResult(eventId) }))),
    anyQueued().then((queued) => (queued ? remove(seldomQueued) : undefined)),
  ]);
}

type QueuedJob = { queue: Queue; jobId: string };

/**
 * Removes a job only if its hash is there and it is not running: many a job
 * a state names was never queued (an evaluation handed over in process, a
 * timer that fired), and BullMQ's removal script costs commands even for
 * those. A running job (its lock held: often the one the run ended in)
 * cannot be removed; it goes as it completes, or with `retention.jobs`.
 * One EXISTS of the job and its lock, which share the queue's slot, says both.
 */
async function removeIfQueued(redis: ControllerRuntime["redis"], queue: Queue, jobId: string): Promise<unknown> {
  const key = queue.toKey(jobId);
  return (await redis.exists(key, `${key}:lock`)) === 1 ? queue.remove(jobId) : 0;
}

/**
 * The step jobs a run's state can name: every attempt of every step, and
 * each resume of the current attempt (an earlier attempt's resumes are not
 * kept; their jobs expire with `retention.jobs`).
 */
function stepJobIdsOf(state: RunState): string[] {
  return state.steps.flatMap((step) =>
    Array.from({ length: step.attempt }, (_, index) => index + 1).flatMap((attempt) =>
      Array.from({ length: attempt === step.attempt ? step.resumes + 1 : 1 }, (_, resume) =>
        jobIds.step(state.runId, step.stepId, attempt, resume),
      ),
    ),
  );
}

function evaluateJobIdsOf(state: RunState): string[] {
  const ofSteps = state.steps.flatMap((step) =>
    Array.from({ length: step.attempt }, (_, index) => jobIds.evaluate(state.runId, step.stepId, index + 1)),
  );
  const ofAnswers = Array.from({ length: state.proposal?.attempt ?? 0 }, (_, index) =>
    jobIds.evaluate(state.runId, FINAL_ANSWER_STEP_ID, index + 1),
  );
  return [...ofSteps, ...ofAnswers];
}
