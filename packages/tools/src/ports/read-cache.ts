import type { RecordedResult } from "@rein/contracts/calls";

/** A run's read cache as the executor uses it: results of read-only idempotent calls by fingerprint. */
export interface RunReadCache {
  get(runId: string, fingerprint: string): Promise<RecordedResult | undefined>;
  put(runId: string, result: RecordedResult): Promise<void>;
  invalidate(runId: string): Promise<void>;
}

/** Cache entries to write with a step's turn: the run's cache key, its TTL and the entries. */
export interface CacheBatch {
  key: string;
  ttlSeconds: number;
  entries: ReadonlyArray<readonly [fingerprint: string, json: string]>;
}

/** One step's view of its run's read cache, whose new entries the step's turn writes take (`take`). */
export interface StepReadCache extends RunReadCache {
  take(): CacheBatch | undefined;
}

/** The runs' shared read cache (the runtime's ToolResultCache), and a step's view of it. */
export interface ReadCache extends RunReadCache {
  openStep(runId: string): Promise<StepReadCache>;
}
