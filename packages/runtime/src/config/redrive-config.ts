import { z } from "zod";

/**
 * The controller's re-drive sweep: every `intervalMs` one controller (the
 * holder of a lease) looks at the runs whose state has not changed for
 * `quietMs`, and a job such a run waits for that is gone from its queue (a
 * write a crashed Redis master never replicated, a deleted key) is sent
 * again with the same job id. A job sent again `resendsPerJob` times, or
 * one that cannot be rebuilt, escalates the run to a person instead.
 */
export const RedriveConfig = z.object({
  /** Off: a run whose job is lost waits for its deadline (`budget.maxWallMs`). @defaultValue true */
  enabled: z.boolean().default(true),
  /** How often a controller tries to take the sweep's lease, and sweeps when it has it. @defaultValue 10_000 */
  intervalMs: z.number().int().min(100).default(10_000),
  /**
   * How long a run's state must have stood still before its jobs are
   * checked. Keep it well above the time a role takes to report a finished
   * job to the controller: a job that finished is kept in its queue
   * (`retention.jobs`), so it is never mistaken for a lost one while that
   * is longer. @defaultValue 30_000
   */
  quietMs: z.number().int().min(100).default(30_000),
  /** The most runs one sweep checks; the least recently checked go first, the rest wait for the next sweep. @defaultValue 200 */
  runsPerSweep: z.number().int().min(1).default(200),
  /**
   * How many times one job is sent again, after it was lost from its queue
   * or every worker that held it was lost (a plan, context or evaluate job
   * past `queues.maxStalledCount`), before the run escalates. Steps lost
   * to stalls count `queues.lostStepRedispatches` instead. @defaultValue 2
   */
  resendsPerJob: z.number().int().min(0).default(2),
});
export type RedriveConfig = z.infer<typeof RedriveConfig>;
