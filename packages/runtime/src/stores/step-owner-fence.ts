import type { StepOwner } from "@rein/tools";
import { ReinError } from "@rein/contracts";
import type { RedisKeys } from "../redis/keys.ts";

/**
 * Lua, at the head of a fenced script whose own keys are `KEYS[1]` and
 * `KEYS[2]`: refuses unless the step's owner key (`KEYS[3]`, when given)
 * holds the writer's token (`ARGV[1]`). Checked when Redis runs the script,
 * so a write a cut-off worker's client queued and sent on reconnect is
 * refused too.
 */
export const OWNER_FENCE_LUA = `
if #KEYS > 2 and redis.call('GET', KEYS[3]) ~= ARGV[1] then return {'taken_over'} end`;

/**
 * Lua, after the owner fence: refuses once the run's hash (`KEYS[4]`, when
 * given) says the run ended or waits for a person, as a turn's write does.
 */
export const RUN_ACTIVE_LUA = `
if #KEYS > 3 then
  local status = redis.call('HGET', KEYS[4], 'status')
  if status == 'done' or status == 'failed' or status == 'cancelled' or status == 'escalated' then return {'run_ended', status} end
end`;

/** The keys a fenced script is given after its own two: the step's owner key, and with `run` the run's hash. */
export function fenceKeys(keys: RedisKeys, owner: StepOwner | undefined, run: boolean): string[] {
  if (!owner) return [];
  return run ? [keys.stepOwner(owner.runId, owner.stepId), keys.run(owner.runId)] : [keys.stepOwner(owner.runId, owner.stepId)];
}

/** The error a refused write throws: a script's `{'taken_over'}` or `{'run_ended', status}` reply, else nothing. */
export function fenceRefusal(reply: unknown, owner: StepOwner | undefined, what: string): ReinError | undefined {
  if (!owner || !Array.isArray(reply)) return undefined;
  const [verdict, status]: unknown[] = reply;
  if (verdict === "taken_over") {
    return new ReinError(
      "lock_lost",
      `step ${owner.stepId} of run ${owner.runId} is no longer this worker's (its job was taken over); ${what} was not written`,
    );
  }
  if (verdict === "run_ended") {
    return new ReinError(
      "run_ended",
      `run ${owner.runId} has ended (${String(status)}) while step ${owner.stepId} ran; ${what} was not written`,
      { details: { status } },
    );
  }
  return undefined;
}
