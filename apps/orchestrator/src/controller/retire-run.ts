import { expireWithin, jobIds, type ReinRuntime, type RunState, runKeysOf } from "@rein/core";

/**
 * What is left of a run that ended: its keys expire after
 * `retention.runTtlSeconds`, and its deadline and pending approval
 * expiries leave the control queue instead of waiting there to be ignored.
 * Idempotent, as every effect: a replay sets the same TTLs and finds the
 * jobs gone.
 */
export async function retireRun(runtime: ReinRuntime, state: RunState): Promise<void> {
  await expireWithin(runtime.redis, await runKeysOf(runtime.redis, runtime.keys, state), runtime.config.retention.runTtlSeconds);
  const timers = [`deadline-${state.runId}`, ...state.pendingApprovals.map((approvalId) => `approval-expiry-${approvalId}`)];
  // An active one is the event being applied right now: it completes and goes with the finished jobs.
  await Promise.all(timers.map((eventId) => runtime.queues.control.remove(jobIds.control(eventId)).catch(() => 0)));
}
