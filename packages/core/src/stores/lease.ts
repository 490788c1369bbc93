import type { Redis } from "ioredis";
import { newId } from "../ids.ts";
import type { RedisKeys } from "../redis/keys.ts";

const release = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;
const renew = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`;

export interface Lease {
  readonly runId: string;
  /** Whether the lease is still ours (renewal has not failed). */
  readonly held: boolean;
  release(): Promise<void>;
}

/**
 * One holder per run at a time: SET NX PX, renewed at a third of its TTL
 * while held, released only by its holder (token-checked).
 */
export class LeaseManager {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly ttlMs = 10_000,
  ) {}

  async acquire(runId: string): Promise<Lease | null> {
    const key = this.keys.lease(runId);
    const token = newId("call");
    const ok = await this.redis.set(key, token, "PX", this.ttlMs, "NX");
    if (ok !== "OK") return null;
    let held = true;
    const timer = setInterval(() => {
      this.redis.eval(renew, 1, key, token, String(this.ttlMs)).then(
        (renewed) => {
          if (renewed !== 1) held = false;
        },
        () => {
          held = false;
        },
      );
    }, Math.max(50, Math.floor(this.ttlMs / 3)));
    timer.unref();
    return {
      runId,
      get held() {
        return held;
      },
      release: async () => {
        clearInterval(timer);
        held = false;
        await this.redis.eval(release, 1, key, token);
      },
    };
  }
}
