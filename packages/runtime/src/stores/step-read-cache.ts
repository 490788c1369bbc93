import type { CacheBatch, RunReadCache, StepReadCache } from "@rein/tools";
import type { RecordedResult } from "@rein/contracts/calls";

/** What a step's view needs of the run's shared cache (ToolResultCache). */
export interface SharedReadCache extends RunReadCache {
  fingerprints(runId: string): Promise<string[]>;
  entryOf(result: RecordedResult): string | undefined;
  batch(runId: string, entries: CacheBatch["entries"]): CacheBatch;
}

// What a step keeps in memory of the results it read; past this it asks Redis again.
const HELD_BYTES = 4 * 1024 * 1024;

/**
 * One step's view of its run's read cache. A run has one step working at a
 * time (a parent waits while its child runs), and a step's writes are fenced
 * by its owner key, so within the step nothing but the step itself changes
 * the cache: what it read or wrote, and which fingerprints the cache held
 * when the step opened, answer most lookups without a round trip. Its new
 * entries are written with the turn (CheckpointStore.saveTurn), so a turn
 * costs one write, and a worker cut off from its step lands none of them.
 * Another run's calls go to the shared cache, as TraceBuffer does with
 * another run's events.
 */
export class StepCacheView implements StepReadCache {
  private readonly held = new Map<string, RecordedResult>();
  private heldBytes = 0;
  private pending = new Map<string, { result: RecordedResult; json: string }>();

  private constructor(
    private readonly shared: SharedReadCache,
    readonly runId: string,
    /** Fingerprints stored in Redis: when the step opened, plus what its turns wrote since. */
    private stored: Set<string>,
  ) {}

  /** Opens the view with one read of which fingerprints the run's cache holds. */
  static async open(shared: SharedReadCache, runId: string): Promise<StepCacheView> {
    return new StepCacheView(shared, runId, new Set(await shared.fingerprints(runId)));
  }

  async get(runId: string, fingerprint: string): Promise<RecordedResult | undefined> {
    if (runId !== this.runId) return this.shared.get(runId, fingerprint);
    const known = this.held.get(fingerprint) ?? this.pending.get(fingerprint)?.result;
    if (known) return known;
    if (!this.stored.has(fingerprint)) return undefined;
    const read = await this.shared.get(runId, fingerprint);
    if (read) this.hold(read, read.rendered.length);
    return read;
  }

  async put(runId: string, result: RecordedResult): Promise<void> {
    if (runId !== this.runId) return this.shared.put(runId, result);
    const json = this.shared.entryOf(result);
    if (json === undefined) return;
    this.pending.set(result.fingerprint, { result, json });
    this.hold(result, json.length);
  }

  /** Drops what the step knew along with the run's cache: a write may have made any of it stale. */
  async invalidate(runId: string): Promise<void> {
    if (runId === this.runId) {
      this.held.clear();
      this.heldBytes = 0;
      this.pending = new Map();
      this.stored = new Set();
    }
    await this.shared.invalidate(runId);
  }

  /** Hands over the entries written since the last take, for the turn's write. */
  take(): CacheBatch | undefined {
    if (this.pending.size === 0) return undefined;
    const entries = [...this.pending].map(([fingerprint, { json }]) => [fingerprint, json] as const);
    for (const [fingerprint] of entries) this.stored.add(fingerprint);
    this.pending = new Map();
    return this.shared.batch(this.runId, entries);
  }

  private hold(result: RecordedResult, bytes: number): void {
    if (this.held.has(result.fingerprint) || this.heldBytes + bytes > HELD_BYTES) return;
    this.held.set(result.fingerprint, result);
    this.heldBytes += bytes;
  }
}
