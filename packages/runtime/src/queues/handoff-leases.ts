import type { RedisKeys } from "../redis/keys.ts";
import type { RedisClient } from "../redis/redis-client.ts";
import { LuaScript } from "../redis/lua-script.ts";

const RENEW = new LuaScript(`
if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("PEXPIRE", KEYS[1], ARGV[2]) end
return 0`);

const RELEASE = new LuaScript(`
if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end
return 0`);

/**
 * Leases on jobs run in process instead of through their queue (an
 * in-process hand-off). A lease stands for the queue job while its holder
 * runs it: the re-drive sweep counts the job present while its lease
 * exists, and a holder that dies leaves it to expire, after which the sweep
 * finds the job gone and has it sent again, as for a queue job whose worker
 * died. Each lease is a key of its run's slot that only its holder renews
 * or releases.
 */
export class HandoffLeases {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
  ) {}

  /** Takes the lease on job `jobId` of run `runId` for `ttlMs`; false when another holder has it. */
  async take(runId: string, jobId: string, holder: string, ttlMs: number): Promise<boolean> {
    return (await this.redis.set(this.keys.handoffLease(runId, jobId), holder, "PX", ttlMs, "NX")) === "OK";
  }

  /** Extends `holder`'s lease by `ttlMs` from now; false when it is no longer theirs (it expired). */
  async renew(runId: string, jobId: string, holder: string, ttlMs: number): Promise<boolean> {
    return (await RENEW.run(this.redis, [this.keys.handoffLease(runId, jobId)], [holder, String(ttlMs)])) === 1;
  }

  /** Ends `holder`'s lease; one that expired and was taken by another holder stays theirs. */
  async release(runId: string, jobId: string, holder: string): Promise<void> {
    await RELEASE.run(this.redis, [this.keys.handoffLease(runId, jobId)], [holder]);
  }

  /** Whether someone holds a lease on job `jobId` of run `runId` now. */
  async held(runId: string, jobId: string): Promise<boolean> {
    return (await this.redis.exists(this.keys.handoffLease(runId, jobId))) === 1;
  }
}
