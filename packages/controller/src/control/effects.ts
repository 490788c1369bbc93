import type { HandedWork, LocalHandoff } from "./local-handoff.ts";
import { retireRun } from "./retire-run.ts";
import { RunDeadlines } from "./run-deadlines.ts";
import { ReinError } from "@rein/contracts";
import type { RunState } from "@rein/contracts/run";
import type { ControlEvent, ControllerEffect, EvaluateJob, EvaluateRequest } from "@rein/contracts/messages";
import type { PacketSigner } from "@rein/signing";
import { jobIds, LessonStore, QUEUE_NAMES, type ControllerRuntime } from "@rein/runtime";
import { Workspace } from "@rein/tools";

/** What an effect is performed for: the state that holds it and the event that caused it (unknown when effects are settled later). */
export interface EffectContext {
  state: RunState;
  event?: ControlEvent;
  runtime: ControllerRuntime;
  signer: PacketSigner;
  /** Where plan and evaluate jobs may run in this process instead of their queue; absent, all go to their queue. */
  local?: LocalHandoff;
  /** By job id, the hand-off leases the write of `state` took (true) or found another's (false); see LocalHandoff.leaseFor. */
  leased?: ReadonlyMap<string, boolean>;
}

/** The plan and evaluate jobs `effects` ask for, by the id each has in its queue: what may run in process (LocalHandoff). */
export function handedJobIds(effects: readonly ControllerEffect[]): { kind: HandedWork["kind"]; jobId: string }[] {
  return effects.flatMap((effect): { kind: HandedWork["kind"]; jobId: string }[] => {
    if (effect.type === "enqueue_plan") return [{ kind: "plan", jobId: jobIds.plan(effect.job.runId, effect.job.planNo) }];
    if (effect.type === "enqueue_evaluate")
      return [{ kind: "evaluate", jobId: jobIds.evaluate(effect.job.runId, effect.job.stepId, effect.job.attempt) }];
    return [];
  });
}

/**
 * Performs a transition's effects. The workspace is made first (a step may
 * need it); the enqueues are independent, idempotent and go out together,
 * so ioredis pipelines them into one round trip instead of one each.
 */
export async function performEffects(effects: readonly ControllerEffect[], context: EffectContext): Promise<void> {
  const workspaceFirst = effects.filter((effect) => effect.type === "prepare_workspace");
  for (const effect of workspaceFirst) await performEffect(effect, context);
  await Promise.all(effects.filter((effect) => effect.type !== "prepare_workspace").map((effect) => performEffect(effect, context)));
}

/** Performs one effect. Every effect is idempotent: a replay after a crash changes nothing. */
async function performEffect(effect: ControllerEffect, { state, event, runtime, signer, local, leased }: EffectContext): Promise<void> {
  switch (effect.type) {
    case "prepare_workspace":
      // Filled, if at all, at intake by the submitter, which alone knows
      // whether it may read the directory; the controller only makes sure it exists.
      await Workspace.forRun(runtime.config.workspaceRoot, state.runId);
      return;
    case "schedule_deadline":
      await new RunDeadlines(runtime).schedule(state.runId, Date.now() + effect.delayMs);
      return;
    case "enqueue_plan": {
      const { job } = effect;
      const jobId = jobIds.plan(job.runId, job.planNo);
      const handed = await local?.run({ kind: "plan", job, jobId }, leased?.get(jobId));
      if (!handed) await runtime.queues.sendPlan(job);
      return;
    }
    case "dispatch_step": {
      const packet = signer.sign(effect.body);
      await runtime.queues.sendStep({ packet }, effect.jobId, state.build);
      return;
    }
    case "enqueue_context_request":
      await runtime.queues.sendContextRequest(effect.job);
      return;
    case "enqueue_evaluate": {
      const job = evaluateJobOf(effect.job, event);
      const jobId = jobIds.evaluate(job.runId, job.stepId, job.attempt);
      const handed = await local?.run({ kind: "evaluate", job, jobId }, leased?.get(jobId));
      if (!handed) await runtime.queues.sendEvaluate(job);
      return;
    }
    case "schedule_approval_expiry":
      await runtime.queues.sendControl(
        {
          type: "approval.decided",
          eventId: `approval-expiry-${effect.approvalId}`,
          runId: state.runId,
          approvalId: effect.approvalId,
          decision: "expired",
        },
        { delay: effect.delayMs },
      );
      return;
    case "record_lesson":
      await new LessonStore(runtime.redis, runtime.keys).put(effect.lesson);
      return;
    case "withdraw_approval_expiry":
      // Gone already when it fired (an active one is being applied right now).
      await runtime.queues
        .ofRun(QUEUE_NAMES.control, state.runId)
        .remove(jobIds.control(`approval-expiry-${effect.approvalId}`))
        .catch(() => 0);
      return;
    case "cancel_steps":
      // The channel the workers already hear run ends on: only the named steps stop; a missed message is fenced by
      // the controller, which no longer takes their results.
      await runtime.redis.publish(
        runtime.keys.runEnded(),
        JSON.stringify({ runId: state.runId, status: state.status, stepIds: effect.stepIds }),
      );
      return;
    case "retire_run":
      await retireRun(runtime, state);
      return;
  }
}

/**
 * The evaluate job of a request: a step's gets its result from the event
 * that finished the step, which the outbox does not copy, or, when the job
 * is sent again after it was lost, from the `jobs.lost` event that carried
 * it. A redelivered event is the same event, so a replay sends the same job.
 */
function evaluateJobOf(request: EvaluateRequest, event: ControlEvent | undefined): EvaluateJob {
  if (request.kind === "final") return request;
  const { stepId, attempt } = request;
  const result =
    event?.type === "step.finished" && event.stepId === stepId && event.attempt === attempt
      ? event.result
      : event?.type === "jobs.lost"
        ? event.stepResults.find((candidate) => candidate.stepId === stepId && candidate.attempt === attempt)
        : undefined;
  if (!result) {
    throw new ReinError(
      "contract_invalid",
      `the evaluation of step ${stepId} attempt ${attempt} needs that attempt's result, from its step.finished event or a jobs.lost event that carries it; it came with ${event ? `${event.type} event ${event.eventId}` : "no event"}`,
    );
  }
  return { ...request, result };
}
