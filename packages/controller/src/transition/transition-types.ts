import type { RunState } from "@rein/contracts/run";
import type { ControllerEffect } from "@rein/contracts/messages";
import type { TraceEventInput } from "@rein/trace";

export interface TransitionSettings {
  now: Date;
  /** The deepest a delegation chain may go: `config.packets.maxDepth`, the same limit workers check packets against. */
  maxDepth: number;
  packetTtlMs: number;
  /** How long an approval waits for a person before it counts as denied. */
  approvalTtlMs: number;
  /** How many times a step whose workers were all lost is dispatched again before its run escalates: `config.queues.lostStepRedispatches`. */
  lostStepRedispatches: number;
  /** How many times a lost plan, context or evaluate job (or a step's job lost from its queue) is sent again before its run escalates: `config.redrive.resendsPerJob`. */
  resendsPerJob: number;
  /** The most steps of a run in flight at once, and children one step waits for: `config.packets.maxParallel` (a goal may ask for fewer). @defaultValue 4 */
  maxParallel?: number;
  /** The build new runs are started under (`config.buildId`): their steps go to that build's step queue. */
  buildId?: string;
}

export interface Transition {
  state: RunState;
  effects: ControllerEffect[];
  trace: TraceEventInput[];
  /** False when the event did not apply (stale, duplicate, or wrong status); nothing is written. */
  applied: boolean;
}
