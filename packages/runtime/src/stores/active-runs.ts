import { isTerminal, type RunState } from "@rein/contracts/run";
import type { RedisKeys } from "../redis/keys.ts";
import type { RedisClient } from "../redis/redis-client.ts";

type Stamped = Pick<RunState, "runId" | "status" | "updatedAt">;

const stampSecond = (run: Stamped): number => Math.floor(Date.parse(run.updatedAt) / 1_000);

/**
 * The runs that have not ended, scored by when each last changed (its
 * state's `updatedAt`) or was last checked by the re-drive sweep, so the
 * sweep reads only runs that stood still. On a cluster the index is in a
 * slot of its own, so it is written with single-key commands after a run's
 * compare-and-set rather than inside it; an entry a moment stale is
 * harmless, as the sweep re-reads each run's state before it acts.
 */
export class ActiveRuns {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
  ) {}

  /**
   * After `run` was written over `previous`: an ended run leaves the index,
   * any other is stamped with its last change. A change in the same second
   * as the one it follows is not stamped again: the first change of each
   * second was, so a stamp is less than a second behind its run, and a run's
   * burst of writes costs one command rather than one each.
   */
  async record(run: Stamped, previous?: Stamped): Promise<void> {
    if (isTerminal(run.status)) await this.redis.zrem(this.keys.activeRuns(), run.runId);
    else if (!previous || stampSecond(previous) !== stampSecond(run)) {
      await this.redis.zadd(this.keys.activeRuns(), Date.parse(run.updatedAt), run.runId);
    }
  }

  /** Up to `limit` runs stamped at or before `before` (ms), the longest untouched first. */
  async stampedBefore(before: number, limit: number): Promise<string[]> {
    return this.redis.zrangebyscore(this.keys.activeRuns(), "-inf", before, "LIMIT", 0, limit);
  }

  /** The sweep looked at the run at `at`: it goes to the back of the line, unless it left the index meanwhile. */
  async checked(runId: string, at: number): Promise<void> {
    await this.redis.zadd(this.keys.activeRuns(), "XX", at, runId);
  }

  async forget(runId: string): Promise<void> {
    await this.redis.zrem(this.keys.activeRuns(), runId);
  }
}
