import type { StepState } from "@rein/contracts/run";
import type { Draft } from "./run-draft.ts";

/**
 * A step whose job stalled past its limit: every worker that held it died or
 * lost Redis, and nothing it did failed, so its checkpoint is intact. It is
 * dispatched again as a resumed attempt (a new job, the same attempt, so the
 * next worker restores the checkpoint) up to `lostStepRedispatches` times;
 * after that the workers themselves are the problem, and a person decides
 * when they are fit to go on.
 */
export function redispatchOrEscalate(draft: Draft, step: StepState, reason: string): void {
  const limit = draft.settings.lostStepRedispatches;
  if (step.redispatches < limit) {
    step.redispatches += 1;
    step.resumes += 1;
    draft.trace({ kind: "step.redispatched", payload: { reason, redispatch: step.redispatches, limit } }, step);
    draft.dispatch(step, { countsAsStep: false });
    return;
  }
  step.phase = "failed";
  draft.trace({ kind: "step.errored", payload: { reason } }, step);
  const tries =
    limit === 0
      ? "it is not dispatched again after that (config queues.lostStepRedispatches is 0)"
      : `and again after each of its ${limit} re-dispatch(es) (config queues.lostStepRedispatches)`;
  draft.escalate([
    `step ${step.stepId} (attempt ${step.attempt}) was not finished: ${reason}; ${tries}. Its checkpoint is intact. Check the step workers' logs for crashes, out-of-memory kills or lost Redis connections, fix the cause, then reply to go on from the evidence so far: rein reply ${draft.state.runId} "<instruction>"`,
  ]);
}
