import { Worker } from "bullmq";
import { EvaluateJob, liveEventOf, type ModelProvider, onFinalFailure, QUEUE_NAMES, type ReinRuntime, toQueueError, Workspace, zeroUsage } from "@rein/core";
import { commandCheckRunner } from "./command-check.ts";
import { evaluate } from "./evaluate.ts";

export interface EvaluateConsumerDeps {
  runtime: ReinRuntime;
  judge?: ModelProvider;
  concurrency?: number;
}

/** The evaluate queue's consumer: a StepResult in, a `verdict.ready` control event out. */
export function startEvaluateConsumer(deps: EvaluateConsumerDeps): Worker {
  const { runtime } = deps;
  const checks = commandCheckRunner({ trace: runtime.trace, artifacts: runtime.artifacts, config: runtime.config, secrets: runtime.secrets, redactor: runtime.redactor });
  const worker = new Worker(
    QUEUE_NAMES.evaluate,
    async (job, _token, signal) => {
      try {
        const data = EvaluateJob.parse(job.data);
        const workspace = await Workspace.forRun(runtime.config.workspaceRoot, data.runId);
        const { verdict, usage } = await evaluate(
          data,
          {
            trace: runtime.trace,
            workspace,
            checks,
            judge: deps.judge,
            judgeObservationBytes: runtime.config.observations.judgeMaxBytes,
            redactor: runtime.redactor,
            onJudgeEvent: (event) => {
              const live = liveEventOf(event, { runId: data.runId, stepId: data.stepId, role: "judge" });
              if (live) runtime.live.publish(live);
            },
          },
          signal,
        );
        await runtime.queues.sendControl({
          type: "verdict.ready",
          eventId: `verdict-${job.id}`,
          runId: data.runId,
          stepId: data.stepId,
          attempt: data.attempt,
          verdict,
          usage,
        });
      } catch (error) {
        throw toQueueError(error);
      }
    },
    { connection: runtime.connection, prefix: runtime.config.prefix, concurrency: deps.concurrency ?? 4 },
  );
  worker.on("error", (error) => runtime.logger.error({ err: error }, "evaluate consumer error"));
  onFinalFailure(worker, async (job, reason) => {
    const parsed = EvaluateJob.safeParse(job.data);
    if (!parsed.success) return;
    const { runId, stepId, attempt } = parsed.data;
    // A step nobody could judge goes to a person rather than waiting forever.
    await runtime.queues.sendControl({
      type: "verdict.ready",
      eventId: `gave-up-${job.id}`,
      runId,
      stepId,
      attempt,
      verdict: { schemaVersion: 1, runId, stepId, attempt, decision: "escalate", reasons: [`the evaluator failed for good: ${reason}`], checks: [] },
      // What its tries spent is in the trace, not here: a job that threw reported nothing back.
      usage: zeroUsage(),
    });
  });
  return worker;
}
