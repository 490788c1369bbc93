import { randomBytes } from "node:crypto";
import type { ReinRuntime } from "@rein/runtime";
import { incrementsOf, type SeriesKey } from "./trace-increments.ts";

/** Runs, newest first, whose traces a scrape folds into the totals. */
export const FOLD_WINDOW = 1000;
const LOCK_MS = 30_000;
/** A run whose trace ended is folded for good: its cursor says so and it is never read again. */
const ENDED = "end";
const ENDING_KINDS = new Set(["run.done", "run.failed", "run.cancelled"]);

const releaseLock = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/**
 * The deployment's counters, folded from the run traces into one Redis hash.
 * Counting from the trace rather than in each process keeps every role out
 * of it (the trace is already their one durable write, and a counter kept
 * beside it could not share its script: under Redis Cluster the run's keys
 * and a global counter live in different slots), and it counts each event
 * exactly once: per run, a cursor (the last folded seq) moves in the same
 * MULTI as the totals, and one scraper at a time folds, under a lock.
 * A scrape reads only the newest FOLD_WINDOW runs and skips those folded to
 * their end, so its cost follows the active runs, not the history.
 */
export class TraceFold {
  private readonly totals: string;
  private readonly cursors: string;
  private readonly lock: string;

  constructor(private readonly runtime: ReinRuntime) {
    this.totals = runtime.keys.metricsTotals();
    this.cursors = runtime.keys.metricsCursors();
    this.lock = runtime.keys.metricsLock();
  }

  /** Folds what is new, unless another process is folding now, and returns the totals. */
  async totalsNow(): Promise<Map<SeriesKey, number>> {
    const token = randomBytes(8).toString("hex");
    if ((await this.runtime.redis.set(this.lock, token, "PX", LOCK_MS, "NX")) === "OK") {
      try {
        await this.foldWindow();
      } finally {
        await this.runtime.redis.eval(releaseLock, 1, this.lock, token);
      }
    }
    const raw = await this.runtime.redis.hgetall(this.totals);
    return new Map(Object.entries(raw).map(([key, value]) => [key, Number(value)]));
  }

  private async foldWindow(): Promise<void> {
    const runIds = await this.runtime.redis.zrevrange(this.runtime.keys.runIndex(), 0, FOLD_WINDOW - 1);
    if (runIds.length === 0) return;
    const cursors = await this.runtime.redis.hmget(this.cursors, ...runIds);
    for (const [i, runId] of runIds.entries()) {
      const cursor = cursors[i] ?? null;
      if (cursor !== ENDED) await this.foldRun(runId, cursor === null ? 0 : Number(cursor));
    }
  }

  private async foldRun(runId: string, after: number): Promise<void> {
    const events = await this.runtime.trace.read(runId, after);
    if (events.length === 0) return;
    const sums = new Map<SeriesKey, number>();
    for (const event of events) {
      for (const [key, value] of incrementsOf(event)) if (value !== 0) sums.set(key, (sums.get(key) ?? 0) + value);
    }
    const ended = events.some((event) => ENDING_KINDS.has(event.kind));
    const last = events[events.length - 1]?.seq ?? after;
    const write = this.runtime.redis.multi();
    for (const [key, value] of sums) {
      if (Number.isInteger(value)) write.hincrby(this.totals, key, value);
      else write.hincrbyfloat(this.totals, key, value);
    }
    write.hset(this.cursors, runId, ended ? ENDED : String(last));
    await write.exec();
  }
}
