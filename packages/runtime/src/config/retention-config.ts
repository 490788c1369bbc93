import { z } from "zod";

const seconds = () => z.number().int().positive();

/**
 * Seconds a record a step writes (its checkpoint, an intent or outcome
 * record, an approval past its decision window) is kept while its run is
 * still going: far longer than any step works on it, so that no worker
 * resuming the step finds its records gone, and still bounded for a run
 * that never ends. Once the run has ended, no step works on it, and its
 * retirement shortens each to `retention.runTtlSeconds` at most.
 */
export const ACTIVE_RUN_RECORD_TTL_SECONDS = 7 * 24 * 3600;
const count = () => z.number().int().positive();

/** How long finished jobs stay in each queue, by age and by count (whichever removes first). */
export const JobRetention = z.object({
  /**
   * Completed jobs are kept a while so that a job re-added with the same id
   * (a controller replaying its effects after a crash) is recognised as a
   * duplicate. @defaultValue 86_400 (a day)
   */
  completedAgeSeconds: seconds().default(24 * 3600),
  /** @defaultValue 10_000 per queue */
  completedCount: count().default(10_000),
  /** Failed jobs are kept longer, to be inspected. @defaultValue 604_800 (a week) */
  failedAgeSeconds: seconds().default(7 * 24 * 3600),
  /** @defaultValue 10_000 per queue */
  failedCount: count().default(10_000),
});
export type JobRetention = z.infer<typeof JobRetention>;

/**
 * A finished run's trace is packed when the run retires: its written events
 * become deflated chunks of about `chunkBytes` of JSON each, read back as
 * the same events (TraceLog.compact).
 */
export const TraceCompactionConfig = z.object({
  /** @defaultValue true */
  enabled: z.boolean().default(true),
  /** Traces with fewer events are left as written. @defaultValue 100 */
  minEvents: count().default(100),
  /** @defaultValue 65_536 */
  chunkBytes: count().default(65_536),
});
export type TraceCompactionConfig = z.infer<typeof TraceCompactionConfig>;

/**
 * How long what a run leaves in Redis is kept. A run's keys (state, trace,
 * artifacts, idempotency records, approvals, step owner keys) expire
 * `runTtlSeconds` after the run ends, at the latest; a key whose own TTL is
 * shorter keeps it. Checkpoints and the tool cache go when the run ends.
 */
export const RetentionConfig = z.object({
  /** Seconds a finished run's keys are kept after it ends. @defaultValue 2_592_000 (30 days) */
  runTtlSeconds: seconds().default(30 * 24 * 3600),
  /** Seconds to keep a trace after its last event, finished or not; absent: until its run's keys expire. */
  traceTtlSeconds: seconds().optional(),
  /** Seconds to keep each artifact after it is written; absent: until its run's keys expire. */
  artifactTtlSeconds: seconds().optional(),
  jobs: JobRetention.default(JobRetention.parse({})),
  traceCompaction: TraceCompactionConfig.default(TraceCompactionConfig.parse({})),
});
export type RetentionConfig = z.infer<typeof RetentionConfig>;
