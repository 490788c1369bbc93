import type { Job, Worker } from "bullmq";
import { errorMessage, ReinError, type Usage, zeroUsage } from "@rein/contracts";
import { isTerminal, RunStatus } from "@rein/contracts/run";
import { type ControlEvent, EvaluateJob, STEP_RESULT_JOB } from "@rein/contracts/messages";
import { type ModelProvider, usageOfFailure } from "@rein/models";
import { liveEventOf, type EvaluatorRuntime } from "@rein/runtime";
import {
  assertLockHeld,
  DEFAULT_CONCURRENCY,
  type HandedJob,
  type JobDelivery,
  queuedRunEvents,
  reportLostToStalls,
  type RunEvents,
  runRoleJob,
  startRoleConsumer,
  toQueueError,
  type WorkerTiming,
  TraceHold,
} from "@rein/consumer";
import { Workspace } from "@rein/tools";
import { commandCheckRunner } from "./command-check.ts";
import { evaluate } from "./evaluate.ts";
import { applyStepResult, stepResultOf, stepResultToPassOn } from "./step-result-job.ts";

export interface EvaluateConsumerDeps {
  runtime: EvaluatorRuntime;
  judge?: ModelProvider;
  concurrency?: number;
  /** The queue shard it takes from (config `queues.shards`). @defaultValue 0 */
  shard?: number;
  /** Lock and stall settings over config `queues` (`rein worker --lock-ms`). */
  stalled?: WorkerTiming;
  /** Where its verdicts go. @defaultValue the control queue (queuedRunEvents) */
  events?: RunEvents;
}

/**
 * The evaluate queue's consumer. Two kinds of job: a step's result as its
 * worker sent it (`step.finished`), applied through `deps.events`, whose
 * evaluation then runs here where this process hosts it; and an evaluate job,
 * a StepResult in and a `verdict.ready` control event out, applied through `deps.events`.
 */
export function startEvaluateConsumer(deps: EvaluateConsumerDeps): Worker {
  const { runtime } = deps;
  const events = deps.events ?? queuedRunEvents(runtime);
  const runEvaluation = evaluateJobRunner({ ...deps, events });
  return startRoleConsumer(runtime, {
    role: "evaluate",
    concurrency: deps.concurrency ?? DEFAULT_CONCURRENCY.evaluate,
    shard: deps.shard,
    stalled: deps.stalled,
    process: async (delivery) => {
      const { job } = delivery;
      if (job.name !== STEP_RESULT_JOB) return runEvaluation(EvaluateJob.parse(job.data), delivery);
      const result = stepResultOf(job.id, job.data);
      await applyStepResult(result, events);
      await removedIfRunEnded(runtime, job, result.runId);
    },
    onFinalFailure: async (job, reason, { workerLost }) => {
      if (job.name === STEP_RESULT_JOB) {
        // The controller applies it instead; only a step's result: a step worker's job must not carry any other event there.
        const result = stepResultToPassOn(job.data);
        if (result) await runtime.queues.sendControl(result);
        else runtime.logger.error({ jobId: job.id, reason }, "a step-result job that carries no step's result failed for good");
        return;
      }
      const parsed = EvaluateJob.safeParse(job.data);
      if (!parsed.success) return;
      const { runId, stepId, attempt } = parsed.data;
      if (workerLost) {
        const lost =
          parsed.data.kind === "final" ? { kind: "final" as const, runId, attempt } : { kind: "evaluate" as const, runId, stepId, attempt };
        return reportLostToStalls(runtime.queues, job, lost, parsed.data.kind === "final" ? [] : [parsed.data.result]);
      }
      // What its tries spent is in the trace, not here: a job that threw reported nothing back.
      await runtime.queues.sendControl(
        escalation(parsed.data, `gave-up-${job.id}`, `the evaluator failed for good: ${reason}`, zeroUsage()),
      );
    },
  });
}

/** Runs one evaluate job, taken from its queue or handed over in process, its verdict applied through `deps.events`. */
export function evaluateJobRunner(
  deps: Pick<EvaluateConsumerDeps, "runtime" | "judge"> & { events: RunEvents },
): (data: EvaluateJob, delivery: JobDelivery | HandedJob) => Promise<void> {
  const { runtime, events } = deps;
  const checks = commandCheckRunner({
    trace: runtime.trace,
    artifacts: runtime.artifacts,
    config: runtime.config,
    secrets: runtime.secrets,
    redactor: runtime.redactor,
  });
  return async (data, delivery) => {
    const intake =
      "kind" in data && data.kind === "final"
        ? ({ kind: "final", runId: data.runId, attempt: data.attempt } as const)
        : ({ kind: "evaluate", runId: data.runId, stepId: data.stepId, attempt: data.attempt } as const);
    const eventId = `verdict-${"lease" in delivery ? delivery.jobId : delivery.job.id}`;
    await runRoleJob(runtime, delivery, {
      role: "evaluate",
      intake,
      onDropped: async () => events.settle?.(data.runId, eventId),
      run: async ({ jobId, lock, stop }) => {
        const workspace = await Workspace.ofRun(runtime.config.workspaceRoot, data.runId);
        const trace = new TraceHold(runtime.trace, data.runId);
        const verdict = await trace.around(async () => {
          const evaluation = await evaluate(
            data,
            {
              trace,
              workspace,
              checks,
              judge: deps.judge,
              judgeObservationBytes: runtime.config.observations.judgeMaxBytes,
              redactor: runtime.redactor,
              unknownOutcome: runtime.config.evaluator.unknownOutcome,
              onJudgeEvent: (event) => {
                const live = liveEventOf(event, { runId: data.runId, stepId: data.stepId, role: "judge" });
                if (live) runtime.live.publish(live);
              },
            },
            stop,
          );
          assertLockHeld(lock, jobId);
          const { runId, stepId, attempt } = data;
          await trace.carry((held) => events.apply({ type: "verdict.ready", eventId, runId, stepId, attempt, ...evaluation }, held));
          return evaluation.verdict;
        });
        runtime.logger.info({ runId: data.runId, stepId: data.stepId, attempt: data.attempt, decision: verdict.decision }, "verdict");
        if ("job" in delivery) await removedIfRunEnded(runtime, delivery.job, data.runId);
      },
      onError: async (error) => {
        if (!ReinError.isInstance(error) || error.retryable) throw toQueueError(error);
        // Trying again cannot help (a judge that never gives a valid score): escalate now, with what the tries spent.
        await events.apply(escalation(data, eventId, `the evaluator failed: ${errorMessage(error)}`, usageOfFailure(error)));
      },
    });
  };
}

/**
 * The run may have ended inside `job`, its evaluations handed over in
 * process: retirement could not remove the job while it ran, so the job
 * (and the step's whole result it carries) goes as it completes.
 */
async function removedIfRunEnded(runtime: EvaluatorRuntime, job: Job, runId: string): Promise<void> {
  const status = RunStatus.safeParse(await runtime.redis.hget(runtime.keys.run(runId), "status"));
  if (status.success && isTerminal(status.data)) job.opts.removeOnComplete = true;
}

/** A step nobody could judge goes to a person rather than waiting forever. */
function escalation(job: EvaluateJob, eventId: string, reason: string, usage: Usage): ControlEvent {
  const { runId, stepId, attempt } = job;
  return {
    type: "verdict.ready",
    eventId,
    runId,
    stepId,
    attempt,
    verdict: { schemaVersion: 1, runId, stepId, attempt, decision: "escalate", reasons: [reason], checks: [] },
    usage,
  };
}
