import { LuaScript } from "../redis/lua-script.ts";
import type { RedisClient } from "../redis/redis-client.ts";
import type { RedisKeys } from "../redis/keys.ts";
import type { CacheBatch, ReadCache, StepReadCache } from "@rein/tools";
import { RecordedResult } from "@rein/contracts/calls";
import { StepCacheView } from "./step-read-cache.ts";

export interface ToolResultCacheOptions {
  /** Results larger than this are not cached. @defaultValue 1 MiB */
  maxEntryBytes?: number;
  /** Seconds a run's cache lives after its last write. @defaultValue 1 day */
  ttlSeconds?: number;
  /** Told of a write that failed; `put` itself does not wait for Redis (see there). */
  onWriteError?: (error: unknown) => void;
}

// The entry and its TTL in one command: a MULTI of HSET and EXPIRE was four
// commands, and the client's share of a worker turn's CPU went more to it than
// to the turn's whole write (8% of a 200-turn step's profile).
const PUT = new LuaScript(`
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[3])
`);

/**
 * Results of read-only idempotent tools within one run, keyed by the call's
 * fingerprint, in one Redis hash per run. Any non-read tool execution drops
 * the run's whole cache: knowing which reads a write made stale is harder
 * than reading again.
 */
export class ToolResultCache implements ReadCache {
  private readonly maxEntryBytes: number;
  private readonly ttlSeconds: number;
  private readonly onWriteError: (error: unknown) => void;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    options: ToolResultCacheOptions = {},
  ) {
    this.maxEntryBytes = options.maxEntryBytes ?? 1024 * 1024;
    this.ttlSeconds = options.ttlSeconds ?? 24 * 3600;
    this.onWriteError = options.onWriteError ?? (() => undefined);
  }

  /** One step's view of the run's cache, opened with one read of which fingerprints it holds. */
  openStep(runId: string): Promise<StepReadCache> {
    return StepCacheView.open(this, runId);
  }

  async get(runId: string, fingerprint: string): Promise<RecordedResult | undefined> {
    const raw = await this.redis.hget(this.keys.toolCache(runId), fingerprint);
    if (raw === null) return undefined;
    const parsed = RecordedResult.safeParse(JSON.parse(raw));
    // A malformed entry is a miss, not a failure: the tool can simply run.
    return parsed.success && parsed.data.fingerprint === fingerprint ? parsed.data : undefined;
  }

  /**
   * Keeps a result for the run's later reads. Sent, not waited for: an entry
   * is never an acknowledged effect (losing one costs a read), and a later
   * get or invalidate on the same connection is ordered after it, so a worker
   * turn does not spend a Redis round trip on it.
   */
  async put(runId: string, result: RecordedResult): Promise<void> {
    const json = this.entryOf(result);
    if (json === undefined) return;
    PUT.run(this.redis, [this.keys.toolCache(runId)], [result.fingerprint, json, String(this.ttlSeconds)]).then(
      () => undefined,
      this.onWriteError,
    );
  }

  async invalidate(runId: string): Promise<void> {
    await this.redis.del(this.keys.toolCache(runId));
  }

  /** The fingerprints the run's cache holds now. */
  async fingerprints(runId: string): Promise<string[]> {
    return this.redis.hkeys(this.keys.toolCache(runId));
  }

  /** An entry as `put` stores it, or undefined when it is too large to cache. */
  entryOf(result: RecordedResult): string | undefined {
    const json = JSON.stringify(result);
    return Buffer.byteLength(json) > this.maxEntryBytes ? undefined : json;
  }

  /** Entries for a step's turn write, which stores them under the run's cache key with its TTL. */
  batch(runId: string, entries: CacheBatch["entries"]): CacheBatch {
    return { key: this.keys.toolCache(runId), ttlSeconds: this.ttlSeconds, entries };
  }
}
