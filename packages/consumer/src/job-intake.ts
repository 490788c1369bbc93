import { z } from "zod";
import { ReinError } from "@rein/contracts";
import { RunStatus, StepPhase, stopsSteps } from "@rein/contracts/run";
import type { TraceKind, TraceWriter } from "@rein/trace";
import type { Logger } from "@rein/guard";
import { type RunStateReads, AwaitedJobs, awaitedKey, type IntakeJob, jobIds, QUEUE_NAMES, resultEventIds } from "@rein/runtime";
import type { RedisKeys } from "@rein/runtime/keys";

export type { IntakeJob } from "@rein/runtime";

// Only what intake decides on, so a long run's whole state is not validated for it.
const IntakeView = z.object({
  status: RunStatus,
  planCount: z.number().int().nonnegative().default(0),
  steps: z.array(
    z.object({
      stepId: z.string(),
      attempt: z.number().int(),
      phase: StepPhase,
      resumes: z.number().int().nonnegative().default(0),
      awaitingContext: z.string().optional(),
    }),
  ),
  proposal: z.object({ attempt: z.number().int(), phase: z.string() }).optional(),
});
type IntakeView = z.infer<typeof IntakeView>;

/**
 * Why a job must not run, or undefined when its run is still waiting for
 * exactly this job. A job recovered or redelivered after its run ended, or
 * after the controller moved past it, would otherwise call a model (and act)
 * for a result no one will apply.
 *
 * Answered from the `status` and `awaiting` fields the run store writes in
 * the same compare-and-set as the state (one HMGET of a few bytes, no parse
 * of the whole state); only a job that is not awaited, or a run stored
 * without those fields, reads the whole state for the reason. A step job is
 * also dropped once its result is sent: a worker that sent `step.finished`
 * and then stalled before its job completed leaves a job another worker is
 * handed, which would call the model again for a result about to be
 * applied (asked in the same round trip, of the result's job on the evaluate queue).
 */
export async function staleJobReason(redis: RunStateReads, keys: RedisKeys, job: IntakeJob): Promise<string | undefined> {
  const finished = job.kind === "step" ? resultEventIds.stepFinished(job.jobId) : undefined;
  const [[status, awaiting], sent] = await Promise.all([
    redis.hmget(keys.run(job.runId), "status", "awaiting"),
    finished === undefined ? 0 : redis.exists(keys.job(QUEUE_NAMES.evaluate, jobIds.stepResult(finished), job.runId)),
  ]);
  const stored = RunStatus.safeParse(status);
  if (stored.success && stopsSteps(stored.data)) return `run ${job.runId} has already ended (${stored.data})`;
  if (sent === 1) return `its result was already sent (event ${finished}); it is being applied`;
  if (typeof awaiting === "string" && awaitedOf(job.runId, awaiting).includes(awaitedKey(job))) return undefined;
  return staleReasonFromState(redis, keys, job);
}

function awaitedOf(runId: string, field: string): string[] {
  const parsed = AwaitedJobs.safeParse(JSON.parse(field));
  if (!parsed.success)
    throw new ReinError("contract_invalid", `stored run ${runId} has a malformed awaiting field: ${parsed.error.message}`);
  return parsed.data;
}

async function staleReasonFromState(redis: RunStateReads, keys: RedisKeys, job: IntakeJob): Promise<string | undefined> {
  const raw = await redis.hget(keys.run(job.runId), "state");
  if (raw === null) return `run ${job.runId} no longer exists`;
  const parsed = IntakeView.safeParse(JSON.parse(raw));
  if (!parsed.success) throw new ReinError("contract_invalid", `stored run ${job.runId} does not match RunState: ${parsed.error.message}`);
  const state = parsed.data;
  if (stopsSteps(state.status)) return `run ${job.runId} has already ended (${state.status})`;
  switch (job.kind) {
    case "step":
      return staleStep(state, job);
    case "plan":
      if (state.status !== "planning" || state.planCount !== job.planNo)
        return `run ${job.runId} is not waiting for plan ${job.planNo} (${state.status}, plan ${state.planCount})`;
      return undefined;
    case "context": {
      const step = currentStep(state, job);
      if (typeof step === "string") return step;
      return step.awaitingContext === undefined ? `step ${job.stepId} no longer waits for an answer` : undefined;
    }
    case "evaluate": {
      const step = currentStep(state, job);
      if (typeof step === "string") return step;
      if (state.status !== "evaluating" || step.phase !== "evaluating")
        return `step ${job.stepId} is ${step.phase}: it is not waiting for a verdict`;
      return undefined;
    }
    case "final": {
      const proposal = state.proposal;
      if (state.status !== "evaluating" || proposal?.phase !== "evaluating" || proposal.attempt !== job.attempt)
        return `run ${job.runId} is not waiting for a verdict on final answer ${job.attempt}`;
      return undefined;
    }
  }
}

function currentStep(state: IntakeView, job: { runId: string; stepId: string; attempt: number }): IntakeView["steps"][number] | string {
  const step = state.steps.find((candidate) => candidate.stepId === job.stepId);
  if (!step) return `run ${job.runId} has no step ${job.stepId}`;
  if (step.attempt !== job.attempt) return `step ${job.stepId} is on attempt ${step.attempt}, not ${job.attempt}`;
  return step;
}

function staleStep(state: IntakeView, job: Extract<IntakeJob, { kind: "step" }>): string | undefined {
  const step = currentStep(state, job);
  if (typeof step === "string") return step;
  if (step.phase !== "dispatched" && step.phase !== "executing")
    return `step ${job.stepId} is ${step.phase}: its result was already applied`;
  const current = jobIds.step(job.runId, job.stepId, step.attempt, step.resumes);
  if (job.jobId !== current) return `step ${job.stepId} was dispatched again as job ${current}`;
  return undefined;
}

const DROPPED_KINDS = {
  step: "step.dropped",
  plan: "plan.dropped",
  context: "context.dropped",
  evaluate: "evaluate.dropped",
  final: "evaluate.dropped",
} as const satisfies Record<IntakeJob["kind"], TraceKind>;

export interface IntakeDeps {
  redis: RunStateReads;
  keys: RedisKeys;
  trace: TraceWriter;
  logger: Logger;
}

/**
 * True when the job may run; otherwise it is dropped here, said once in the
 * log and in its run's trace (`step.dropped`, `plan.dropped`,
 * `context.dropped`, `evaluate.dropped`), and never executed. `stale` is the
 * answer of a `staleJobReason` read the role sent earlier for this job (the
 * step worker sends it while it checks the packet's signature); without it,
 * the read is made now.
 */
export async function admitJob(deps: IntakeDeps, jobId: string, job: IntakeJob, stale?: Promise<string | undefined>): Promise<boolean> {
  const reason = await (stale ?? staleJobReason(deps.redis, deps.keys, job));
  if (reason === undefined) return true;
  const stepId = "stepId" in job ? job.stepId : null;
  const attempt = "attempt" in job ? job.attempt : null;
  deps.logger.warn({ runId: job.runId, stepId, attempt, jobId, reason }, `stale ${job.kind} job dropped`);
  await deps.trace.append({
    runId: job.runId,
    stepId,
    kind: DROPPED_KINDS[job.kind],
    payload: { jobId, attempt, ...(job.kind === "plan" ? { planNo: job.planNo } : {}), reason },
  });
  return false;
}
