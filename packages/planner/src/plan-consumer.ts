import type { Worker } from "bullmq";
import { errorMessage, ReinError, zeroUsage } from "@rein/contracts";
import { ContextJob, PlanJob } from "@rein/contracts/messages";
import { usageOfFailure } from "@rein/models";
import { liveEventOf, type PlannerRuntime } from "@rein/runtime";
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
  type WorkerTiming,
  TraceHold,
} from "@rein/consumer";
import { answerContextRequest } from "./context-answer.ts";
import { plan, type PlannerDeps } from "./planner.ts";

export interface PlanConsumerOptions {
  concurrency?: number;
  /** The queue shard it takes from (config `queues.shards`). @defaultValue 0 */
  shard?: number;
  /** Lock and stall settings over config `queues` (`rein worker --lock-ms`). */
  stalled?: WorkerTiming;
  /** Where its results go. @defaultValue the control queue (queuedRunEvents) */
  events?: RunEvents;
}

/** The plan queue's consumer: a PlanJob in, a `plan.ready` or `plan.failed` control event out, applied through `options.events`. */
export function startPlanConsumer(runtime: PlannerRuntime, deps: Omit<PlannerDeps, "trace">, options: PlanConsumerOptions = {}): Worker {
  const events = options.events ?? queuedRunEvents(runtime);
  const runPlan = planJobRunner(runtime, deps, events);
  return startRoleConsumer(runtime, {
    role: "plan",
    concurrency: options.concurrency ?? DEFAULT_CONCURRENCY.plan,
    shard: options.shard,
    stalled: options.stalled,
    process: async (delivery) => {
      const { job } = delivery;
      if (job.name === "context") {
        const request = ContextJob.parse(job.data);
        const { runId, stepId, attempt } = request;
        const eventId = `answered-${job.id}`;
        await runRoleJob(runtime, delivery, {
          role: "plan",
          intake: { kind: "context", runId, stepId, attempt },
          onDropped: async () => events.settle?.(runId, eventId),
          run: async ({ jobId, lock, stop }) => {
            const answered = await answerContextRequest(
              request,
              deps.providerFor(request.modelOverride),
              runtime.trace,
              stop,
              runtime.redactor,
            ).catch((error: unknown) => {
              if (!ReinError.isInstance(error) || error.retryable) throw error;
              // A question the planner cannot answer is answered with that, so the step resumes instead of waiting.
              return {
                answer: { evidence_ids: [], refusal: `the planner could not answer: ${errorMessage(error)}` },
                usage: usageOfFailure(error),
              };
            });
            assertLockHeld(lock, jobId);
            await events.apply({
              type: "context.answered",
              eventId,
              runId,
              stepId,
              attempt,
              evidenceIds: answered.answer.evidence_ids,
              refusal: answered.answer.refusal,
              usage: answered.usage,
            });
          },
        });
        return;
      }
      await runPlan(PlanJob.parse(job.data), delivery);
    },
    onFinalFailure: async (job, reason, { workerLost }) => {
      if (job.name === "context") {
        const context = ContextJob.safeParse(job.data);
        if (!context.success) return;
        const { runId, stepId, attempt } = context.data;
        if (workerLost) return reportLostToStalls(runtime.queues, job, { kind: "context", runId, stepId, attempt });
        await runtime.queues.sendControl({
          type: "context.answered",
          eventId: `gave-up-${job.id}`,
          runId,
          stepId,
          attempt,
          evidenceIds: [],
          refusal: `the planner could not answer after ${job.attemptsMade} attempt(s): ${reason}`,
          usage: zeroUsage(),
        });
        return;
      }
      const parsed = PlanJob.safeParse(job.data);
      if (!parsed.success) return;
      if (workerLost)
        return reportLostToStalls(runtime.queues, job, { kind: "plan", runId: parsed.data.runId, planNo: parsed.data.planNo });
      await runtime.queues.sendControl({
        type: "plan.failed",
        eventId: `gave-up-${job.id}`,
        runId: parsed.data.runId,
        planNo: parsed.data.planNo,
        reason: `the plan job failed for good after ${job.attemptsMade} attempt(s): ${reason}`,
        // What its tries spent is in the trace, not here: a job that threw reported nothing back.
        usage: zeroUsage(),
      });
    },
  });
}

/** Runs one plan job, taken from its queue or handed over in process, its result applied through `events`. */
export function planJobRunner(
  runtime: PlannerRuntime,
  deps: Omit<PlannerDeps, "trace">,
  events: RunEvents,
): (data: PlanJob, delivery: JobDelivery | HandedJob) => Promise<void> {
  return async (data, delivery) => {
    const eventId = `planned-${"lease" in delivery ? delivery.jobId : delivery.job.id}`;
    await runRoleJob(runtime, delivery, {
      role: "plan",
      intake: { kind: "plan", runId: data.runId, planNo: data.planNo },
      onDropped: async () => events.settle?.(data.runId, eventId),
      run: async ({ jobId, lock, stop }) => {
        const trace = new TraceHold(runtime.trace, data.runId);
        await trace.around(async () => {
          const outcome = await plan(
            data,
            {
              ...deps,
              trace,
              redactor: deps.redactor ?? runtime.redactor,
              onModelEvent: (event) => {
                const live = liveEventOf(event, { runId: data.runId, stepId: null, role: "planner" });
                if (live) runtime.live.publish(live);
              },
            },
            stop,
          );
          assertLockHeld(lock, jobId);
          const { runId, planNo } = data;
          if (outcome.ok) {
            const { plan: ready, usage, lessonsUsed } = outcome;
            await trace.carry((held) =>
              events.apply({ type: "plan.ready", eventId, runId, planNo, plan: ready, usage, lessonsUsed }, held),
            );
            runtime.logger.info({ runId, planNo, done: ready.done, nextStep: ready.current_step?.title ?? null }, "plan ready");
          } else {
            const { reason, usage } = outcome;
            await trace.carry((held) => events.apply({ type: "plan.failed", eventId, runId, planNo, reason, usage }, held));
            runtime.logger.warn({ runId, planNo, reason }, "plan failed");
          }
        });
      },
    });
  };
}
