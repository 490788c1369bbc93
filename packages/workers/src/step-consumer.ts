import type { KeyObject } from "node:crypto";
import { WaitingError, type Worker } from "bullmq";
import {
  admitJob,
  assertAttenuated,
  CheckpointStore,
  errorMessage,
  giveUpLostLock,
  liveEventOf,
  PacketVerifier,
  priceFor,
  resultEventIds,
  type ModelProvider,
  type ModelStreamEvent,
  ReinError,
  RunEndWatch,
  startRoleConsumer,
  StepJob,
  type StepWorkerRuntime,
  toQueueError,
  type ToolExecutor,
  type WorkerTiming,
  type WatchedLock,
  type WatchedRun,
  Workspace,
} from "@rein/core";
import { runStepLoop } from "./step-loop.ts";

export interface StepConsumerDeps {
  runtime: StepWorkerRuntime;
  /** The controller's public key: workers can verify packets, never mint them. */
  packetPublicKey: KeyObject;
  provider: ModelProvider;
  executor: ToolExecutor;
  concurrency?: number;
  /** Lock and stall settings over config `queues` (`rein worker --lock-ms`). */
  stalled?: WorkerTiming;
  onModelEvent?: (event: ModelStreamEvent & { runId: string; stepId: string }) => void;
}

/** The step queue's consumer: a signed HandoffPacket in, a StepResult out as a `step.finished` event. */
export function startStepConsumer(deps: StepConsumerDeps): Worker {
  const { runtime } = deps;
  const verifier = new PacketVerifier(deps.packetPublicKey);
  const checkpoints = new CheckpointStore(runtime.redis, runtime.keys);
  // A run's steps reuse its opened workspace instead of a mkdir and realpath each.
  const workspaces = new Map<string, Promise<Workspace>>();
  const workspaceOf = (runId: string): Promise<Workspace> => {
    let workspace = workspaces.get(runId);
    if (!workspace) {
      if (workspaces.size >= 1024) workspaces.delete(workspaces.keys().next().value as string);
      workspace = Workspace.forRun(runtime.config.workspaceRoot, runId);
      workspace.catch(() => workspaces.delete(runId));
      workspaces.set(runId, workspace);
    }
    return workspace;
  };
  // One subscription for all of this worker's steps: a run's end reaches its running steps without a Redis read per turn.
  const runEnds = new RunEndWatch(runtime.redis, runtime.keys, runtime.logger);
  const price = priceFor(runtime.config.prices, deps.provider.name, deps.provider.model, deps.provider.kind);
  const worker = startRoleConsumer(runtime, {
    role: "step",
    concurrency: deps.concurrency ?? 4,
    stalled: deps.stalled,
    process: async (job, token, signal, locks) => {
      let lock: WatchedLock | undefined;
      let run: WatchedRun | undefined;
      const unverified = (job.data as { packet?: { body?: { runId?: string; stepId?: string; attempt?: number } } }).packet?.body;
      try {
        let packet: StepJob["packet"];
        try {
          packet = verifier.verify(StepJob.parse(job.data).packet, { maxDepth: runtime.config.packets.maxDepth });
          const { body } = packet;
          assertAttenuated(body, { ...body.bounds, maxDepth: runtime.config.packets.maxDepth });
        } catch (error) {
          await refuse(runtime, job.id ?? "", unverified, error);
          return;
        }
        const { body } = packet;
        // Watched before intake reads the run: a run that ends after that read is heard of, one that ended before is refused.
        await runEnds.start();
        run = runEnds.watch(body.runId);
        // Recovered or redelivered after its run ended or its result was applied: running it would act twice.
        const jobId = job.id ?? "";
        if (!(await admitJob(runtime, jobId, { kind: "step", jobId, runId: body.runId, stepId: body.stepId, attempt: body.attempt }))) return;
        lock = locks.track(job.id ?? "");
        // Reported with step.finished: a start event of its own would cost the run a controller cycle on the step's critical path.
        const startedAt = new Date().toISOString();
        runtime.logger.info({ runId: body.runId, stepId: body.stepId, attempt: body.attempt }, "step started");
        const workspace = await workspaceOf(body.runId);
        const result = await runStepLoop(
          packet,
          {
            provider: deps.provider,
            executor: deps.executor,
            trace: runtime.trace,
            workspace,
            checkpoints,
            maxDepth: runtime.config.packets.maxDepth,
            price,
            maxTokensPerCall: runtime.config.roles.worker.maxTokens,
            contextTokens: runtime.config.roles.worker.contextTokens,
            redactor: runtime.redactor,
            ownerToken: token,
            lockHeld: lock.held,
            // Always streamed: text deltas go to the run's live channel for whoever watches, on any machine.
            onModelEvent: (event) => {
              const live = liveEventOf(event, { runId: body.runId, stepId: body.stepId, role: "worker" });
              if (live) runtime.live.publish(live);
              deps.onModelEvent?.({ ...event, runId: body.runId, stepId: body.stepId });
            },
          },
          signal ? AbortSignal.any([signal, run.signal]) : run.signal,
        );
        await runtime.queues.sendControl({
          type: "step.finished",
          eventId: resultEventIds.stepFinished(jobId),
          runId: body.runId,
          stepId: body.stepId,
          attempt: body.attempt,
          result,
          startedAt,
        });
        runtime.logger.info({ runId: body.runId, stepId: body.stepId, attempt: body.attempt, status: result.status, turns: result.turns, toolCalls: result.toolCalls.length }, "step finished");
      } catch (error) {
        if (ReinError.hasCode(error, "run_ended")) {
          // Its run ended while it ran: what was in flight was aborted, the step's result is wanted by no one,
          // and the job completes, so nothing retries it.
          runtime.logger.info({ jobId: job.id, reason: error.message }, "step stopped: its run has ended");
          return;
        }
        if (ReinError.hasCode(error, "lock_lost")) return giveUpLostLock(job, token, runtime.logger, "step");
        if (signal?.aborted && token) {
          // Given back on shutdown: back to waiting without spending one of the job's attempts.
          await job.moveToWait(token);
          throw new WaitingError();
        }
        throw toQueueError(error);
      } finally {
        lock?.release();
        run?.release();
      }
    },
    onFinalFailure: async (job, reason, { workerLost }) => {
      const body = (job.data as { packet?: { body?: { runId?: string; stepId?: string; attempt?: number } } }).packet?.body;
      if (!body?.runId || !body.stepId || !body.attempt) return;
      await runtime.queues.sendControl({
        type: "step.errored",
        eventId: `gave-up-${job.id}`,
        runId: body.runId,
        stepId: body.stepId,
        attempt: body.attempt,
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
  worker.on("closed", () => {
    runEnds.close().catch(() => undefined);
  });
  return worker;
}

/** A packet the worker will not act on fails its step with the reason, in the trace and the run. */
async function refuse(
  runtime: StepWorkerRuntime,
  jobId: string,
  body: { runId?: string; stepId?: string; attempt?: number } | undefined,
  error: unknown,
): Promise<void> {
  const reason = errorMessage(error);
  runtime.logger.warn({ jobId, reason }, "packet refused");
  if (!body?.runId || !body.stepId || !body.attempt) return;
  await runtime.trace.append({ runId: body.runId, stepId: body.stepId, kind: "packet.refused", payload: { reason, jobId } });
  await runtime.queues.sendControl({
    type: "step.errored",
    eventId: `refused-${jobId}`,
    runId: body.runId,
    stepId: body.stepId,
    attempt: body.attempt,
    reason: ReinError.isInstance(error) ? error.message : reason,
  });
}
