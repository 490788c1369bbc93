import type { KeyObject } from "node:crypto";
import { WaitingError, type Worker } from "bullmq";
import { errorMessage, ReinError } from "@rein/contracts";
import { StepJob, StepJobAddress } from "@rein/contracts/messages";
import type { Logger } from "@rein/guard";
import { assertAttenuated, PacketVerifier } from "@rein/signing";
import { priceFor, roleMaxTokens, type ModelProvider, type ModelStreamEvent } from "@rein/models";
import { liveEventOf, resultEventIds, type StepWorkerRuntime, stepQueueName } from "@rein/runtime";
import {
  DEFAULT_CONCURRENCY,
  type JobDelivery,
  runRoleJob,
  staleJobReason,
  startRoleConsumer,
  toQueueError,
  type WorkerTiming,
} from "@rein/consumer";
import { type ToolExecutor, Workspace } from "@rein/tools";
import { runStepLoop } from "./step-loop.ts";
import { liveCallWatch } from "./step/live-calls.ts";

export interface StepConsumerDeps {
  runtime: StepWorkerRuntime;
  /** The controller's public key: workers can verify packets, never mint them. */
  packetPublicKey: KeyObject;
  provider: ModelProvider;
  executor: ToolExecutor;
  concurrency?: number;
  /** The build this worker is (config `buildId`): it takes only the steps of runs started under it. */
  build?: string;
  /** The queue shard it takes from (config `queues.shards`). @defaultValue 0 */
  shard?: number;
  /** Lock and stall settings over config `queues` (`rein worker --lock-ms`). */
  stalled?: WorkerTiming;
  onModelEvent?: (event: ModelStreamEvent & { runId: string; stepId: string }) => void;
}

/** The step queue's consumer: a signed HandoffPacket in, a StepResult out as a `step.finished` event on the evaluate queue. */
export function startStepConsumer(deps: StepConsumerDeps): Worker {
  const { runtime } = deps;
  const verifier = new PacketVerifier(deps.packetPublicKey);
  // A run's steps reuse its opened workspace instead of a realpath each.
  const workspaces = new Map<string, Promise<Workspace>>();
  const workspaceOf = (runId: string): Promise<Workspace> => {
    let workspace = workspaces.get(runId);
    if (!workspace) {
      if (workspaces.size >= 1024) workspaces.delete(workspaces.keys().next().value as string);
      workspace = Workspace.ofRun(runtime.config.workspaceRoot, runId);
      workspace.catch(() => workspaces.delete(runId));
      workspaces.set(runId, workspace);
    }
    return workspace;
  };
  const price = priceFor(runtime.config.prices, deps.provider.name, deps.provider.model, deps.provider.kind);
  return startRoleConsumer(runtime, {
    role: "step",
    queue: stepQueueName(deps.build),
    concurrency: deps.concurrency ?? DEFAULT_CONCURRENCY.step,
    shard: deps.shard,
    stalled: deps.stalled,
    process: async (delivery) => {
      const { job, token, signal } = delivery;
      const jobId = job.id ?? "";
      const parsed = StepJob.safeParse(job.data);
      if (!parsed.success) {
        await refuse(runtime, jobId, addressOf(job.data), parsed.error).catch((failure: unknown) =>
          afterFailure(failure, delivery, runtime.logger),
        );
        return;
      }
      const claimed = parsed.data.packet.body;
      // Watched before intake reads the run: a run that ends after that read is heard of, one that ended before is refused.
      // One subscription for all of the process's steps: a run's end reaches its running steps without a Redis read per turn.
      await runtime.runEnds.start();
      const run = runtime.runEnds.watch(claimed.runId, claimed.stepId);
      // The intake read goes out before the signature is checked, so the two overlap: it writes nothing, and
      // its answer is used only once the packet verified (a refused packet's read is left unread).
      const intake = { kind: "step", jobId, runId: claimed.runId, stepId: claimed.stepId, attempt: claimed.attempt } as const;
      const stale = staleJobReason(runtime.redis, runtime.keys, intake);
      stale.catch(() => undefined);
      let packet: StepJob["packet"];
      try {
        packet = verifier.verify(parsed.data.packet, { maxDepth: runtime.config.packets.maxDepth });
        assertAttenuated(packet.body, { ...packet.body.bounds, maxDepth: runtime.config.packets.maxDepth });
      } catch (error) {
        run.release();
        await refuse(runtime, jobId, addressOf(job.data), error).catch((failure: unknown) =>
          afterFailure(failure, delivery, runtime.logger),
        );
        return;
      }
      const { body } = packet;
      try {
        // Recovered or redelivered after its run ended or its result was applied: running it would act twice.
        await runRoleJob(runtime, delivery, {
          role: "step",
          intake,
          stale,
          run: async ({ lock }) => {
            // Reported with step.finished: a start event of its own would cost the run a controller cycle on the step's critical path.
            const startedAt = new Date().toISOString();
            runtime.logger.info({ runId: body.runId, stepId: body.stepId, attempt: body.attempt }, "step started");
            const callWatch = liveCallWatch(runtime.live, {
              runId: body.runId,
              stepId: body.stepId,
              attempt: body.attempt,
              deadline: Date.now() + body.budget.maxMs,
            });
            const result = await runStepLoop(
              packet,
              {
                provider: deps.provider,
                executor: deps.executor,
                trace: runtime.trace,
                workspace: workspaceOf(body.runId),
                checkpoints: runtime.checkpoints,
                maxDepth: runtime.config.packets.maxDepth,
                price,
                maxTokensPerCall: roleMaxTokens(runtime.config.providers, runtime.config.roles.worker),
                contextTokens: runtime.config.roles.worker.contextTokens,
                redactor: runtime.redactor,
                ownerToken: token,
                lockHeld: lock.held,
                callWatch,
                // Always streamed: text deltas go to the run's live channel for whoever watches, on any machine.
                onModelEvent: (event) => {
                  const live = liveEventOf(event, { runId: body.runId, stepId: body.stepId, role: "worker" });
                  if (live) runtime.live.publish(live);
                  deps.onModelEvent?.({ ...event, runId: body.runId, stepId: body.stepId });
                },
              },
              signal ? AbortSignal.any([signal, run.signal]) : run.signal,
            );
            await runtime.queues.sendStepResult({
              type: "step.finished",
              eventId: resultEventIds.stepFinished(jobId),
              runId: body.runId,
              stepId: body.stepId,
              attempt: body.attempt,
              result,
              startedAt,
            });
            runtime.logger.info(
              {
                runId: body.runId,
                stepId: body.stepId,
                attempt: body.attempt,
                status: result.status,
                turns: result.turns,
                toolCalls: result.toolCalls.length,
              },
              "step finished",
            );
          },
          onError: (error) => afterFailure(error, delivery, runtime.logger),
        });
      } finally {
        run.release();
      }
    },
    onFinalFailure: async (job, reason, { workerLost }) => {
      const address = addressOf(job.data);
      if (!address) return;
      await runtime.queues.sendControl({
        type: "step.errored",
        eventId: `gave-up-${job.id}`,
        runId: address.runId,
        stepId: address.stepId,
        attempt: address.attempt,
        ...(workerLost
          ? {
              cause: "worker_lost" as const,
              reason: `its worker died or lost Redis ${job.stalledCounter} time(s) while running it, more than config queues.maxStalledCount allows`,
            }
          : { reason: `the step's job failed for good after ${job.attemptsMade} attempt(s): ${reason}` }),
      });
      // The controller now owns the step (dispatched again, or escalated with the reason in the run's trace):
      // nothing of the step failed, so no failed job is left behind to say otherwise.
      if (workerLost) await job.remove();
    },
  });
}

/**
 * What a step's failure makes of its job: complete when its run ended (what
 * was in flight was aborted and the result is wanted by no one, so nothing
 * retries it); back to waiting when the worker shuts down, without spending
 * one of its attempts; otherwise failed, for the queue to retry or not.
 */
async function afterFailure(error: unknown, { job, token, signal }: JobDelivery, logger: Logger): Promise<void> {
  if (ReinError.hasCode(error, "run_ended")) {
    logger.info({ jobId: job.id, reason: error.message }, "step stopped: its run has ended");
    return;
  }
  if (signal?.aborted && token) {
    await job.moveToWait(token);
    throw new WaitingError();
  }
  throw toQueueError(error);
}

/** The step a job names, if its data names one at all; only for reporting on it. */
function addressOf(data: unknown): StepJobAddress | undefined {
  const parsed = StepJobAddress.safeParse(data);
  return parsed.success ? parsed.data.packet.body : undefined;
}

/** A packet the worker will not act on fails its step with the reason, in the trace and the run. */
async function refuse(runtime: StepWorkerRuntime, jobId: string, address: StepJobAddress | undefined, error: unknown): Promise<void> {
  const reason = errorMessage(error);
  runtime.logger.warn({ jobId, reason }, "packet refused");
  if (!address) return;
  await runtime.trace.append({ runId: address.runId, stepId: address.stepId, kind: "packet.refused", payload: { reason, jobId } });
  await runtime.queues.sendControl({
    type: "step.errored",
    eventId: `refused-${jobId}`,
    runId: address.runId,
    stepId: address.stepId,
    attempt: address.attempt,
    reason: ReinError.isInstance(error) ? error.message : reason,
  });
}
