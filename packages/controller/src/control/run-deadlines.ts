import type { ControllerRuntime } from "@rein/runtime";

/**
 * Each run's deadline as one entry of a sorted set scored by when it is due,
 * instead of a delayed job per run: two commands a run (scheduled, then
 * fired or forgotten) where a delayed job cost BullMQ an add and a removal.
 * Controllers poll it (startDeadlineLoop); the one whose ZREM takes an entry
 * sends the run its `deadline` event.
 */
export class RunDeadlines {
  constructor(private readonly runtime: Pick<ControllerRuntime, "redis" | "keys">) {}

  /** Sets run `runId`'s deadline at `dueAt` (ms) unless it has one: a replayed effect keeps the first. */
  async schedule(runId: string, dueAt: number): Promise<void> {
    await this.runtime.redis.zadd(this.runtime.keys.runDeadlines(), "NX", dueAt, runId);
  }

  /** Runs whose deadline is due at `now`, the earliest first, at most `limit`. */
  due(now: number, limit: number): Promise<string[]> {
    return this.runtime.redis.zrangebyscore(this.runtime.keys.runDeadlines(), "-inf", now, "LIMIT", 0, limit);
  }

  /** Takes run `runId`'s deadline to fire it; false when another controller took it first. */
  async claim(runId: string): Promise<boolean> {
    return (await this.runtime.redis.zrem(this.runtime.keys.runDeadlines(), runId)) === 1;
  }

  async has(runId: string): Promise<boolean> {
    return (await this.runtime.redis.zscore(this.runtime.keys.runDeadlines(), runId)) !== null;
  }

  /** The run ended: its deadline will not be needed. */
  async forget(runId: string): Promise<void> {
    await this.runtime.redis.zrem(this.runtime.keys.runDeadlines(), runId);
  }
}
