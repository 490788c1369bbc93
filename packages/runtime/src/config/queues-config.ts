import { z } from "zod";

/** The settings of one role's queue; any left out come from the shared ones. */
export const QueueSettings = z.object({
  /**
   * How long a job's lock lasts without renewal; a process that dies holding
   * it gives its job back when it lapses. @defaultValue 30_000
   */
  lockMs: z.number().int().min(1_000),
  /** How often a role checks for jobs whose lock lapsed and puts them back. @defaultValue 30_000 */
  stalledIntervalMs: z.number().int().min(1_000),
  /**
   * How many times a job may be put back after its process died before it
   * fails for good. BullMQ's default of 1 fails a step whose worker is
   * killed twice, though its checkpoint is intact. @defaultValue 10
   */
  maxStalledCount: z.number().int().min(1),
  /** Tries of a job that throws (a model that keeps failing) before it fails for good. @defaultValue 5 */
  attempts: z.number().int().min(1),
});
export type QueueSettings = z.infer<typeof QueueSettings>;

export const QUEUE_ROLES = ["control", "plan", "step", "evaluate"] as const;
export type QueueRole = (typeof QUEUE_ROLES)[number];

const SHARED: QueueSettings = { lockMs: 30_000, stalledIntervalMs: 30_000, maxStalledCount: 10, attempts: 5 };

/**
 * Lock, stall and retry settings, the same for every role (controller,
 * planner, step worker, evaluator) unless a role's own entry overrides some:
 * `{ "lockMs": 10000, "step": { "maxStalledCount": 20 } }`.
 */
export const QueuesConfig = z.object({
  lockMs: QueueSettings.shape.lockMs.default(SHARED.lockMs),
  stalledIntervalMs: QueueSettings.shape.stalledIntervalMs.default(SHARED.stalledIntervalMs),
  maxStalledCount: QueueSettings.shape.maxStalledCount.default(SHARED.maxStalledCount),
  attempts: QueueSettings.shape.attempts.default(SHARED.attempts),
  control: QueueSettings.partial().optional(),
  plan: QueueSettings.partial().optional(),
  step: QueueSettings.partial().optional(),
  evaluate: QueueSettings.partial().optional(),
  /**
   * How many times a step whose job stalled past `maxStalledCount` (every
   * worker holding it died or lost Redis) is dispatched again, as a resumed
   * attempt from its intact checkpoint, before the run is escalated to a
   * person. @defaultValue 2
   */
  lostStepRedispatches: z.number().int().min(0).default(2),
  /**
   * How many shards each queue is split into, each under its own hash tag,
   * so that on Redis Cluster queue traffic spreads over the masters (a
   * multiple of their count spreads it evenly). A run's jobs all go to one
   * shard; every consumer takes from every shard. Change it only with no
   * run in flight (docs/scaling.md). @defaultValue 1
   */
  shards: z.number().int().min(1).max(64).default(1),
});
export type QueuesConfig = z.infer<typeof QueuesConfig>;

/** The settings `role` runs with: its own entry over the shared ones. */
export function queueSettingsOf(config: QueuesConfig, role: QueueRole): QueueSettings {
  const { lockMs, stalledIntervalMs, maxStalledCount, attempts } = config;
  return { lockMs, stalledIntervalMs, maxStalledCount, attempts, ...config[role] };
}
