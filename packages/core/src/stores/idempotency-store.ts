import type { RedisClient } from "../redis/redis-client.ts";
import type { RedisKeys } from "../redis/keys.ts";
import { type CallIntent, CallRecord, type RecordedOutcome } from "../tools/call-record.ts";

export interface IdempotencyStoreOptions {
  /** Seconds to keep a record. @defaultValue 7 days */
  ttlSeconds?: number;
}

export type RecordOutcome = { recorded: true } | { recorded: false; existing: CallRecord | undefined };
export type BeginOutcome = { begun: true } | { begun: false; existing: CallRecord | undefined };

// Replaces the intent with the outcome only while the key still holds this writer's intent (or nothing).
const FINISH = `
local current = redis.call('GET', KEYS[1])
if current == false or current == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
  return false
end
return current`;

const ABANDON = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/**
 * Side-effecting calls by idempotency key (`runId:stepId:attempt:index`):
 * first the intent, written before the call starts, then the outcome that
 * replaces it when the call ends. A step re-run after a crash finds its
 * attempt's records: an outcome is replayed instead of performing the effect
 * again; an intent alone means the effect may or may not have happened. A
 * retry is a new attempt, so its calls get records of their own. The first
 * writer wins: an intent is written only where there is no record, an
 * outcome only over its own intent.
 */
export class IdempotencyStore {
  private readonly ttlSeconds: number;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    options: IdempotencyStoreOptions = {},
  ) {
    this.ttlSeconds = options.ttlSeconds ?? 7 * 24 * 3600;
  }

  async get(key: string): Promise<CallRecord | undefined> {
    return parseRecord(await this.redis.get(this.keys.idempotency(key)));
  }

  /** Records that the call is about to start, unless the key already holds a record, which is returned instead. */
  async begin(key: string, intent: CallIntent): Promise<BeginOutcome> {
    const written = await this.redis.set(this.keys.idempotency(key), JSON.stringify(intent), "EX", this.ttlSeconds, "NX");
    if (written === "OK") return { begun: true };
    return { begun: false, existing: await this.get(key) };
  }

  /**
   * Takes over a key whose intent was left by a cut-off run of an idempotent
   * call, which is about to run again.
   */
  async restart(key: string, intent: CallIntent): Promise<void> {
    await this.redis.set(this.keys.idempotency(key), JSON.stringify(intent), "EX", this.ttlSeconds);
  }

  /** Replaces this writer's intent with the call's outcome; if another writer's record is there, that record is returned and kept. */
  async finish(key: string, intent: CallIntent, outcome: RecordedOutcome): Promise<RecordOutcome> {
    const existing = await this.redis.eval(FINISH, 1, this.keys.idempotency(key), JSON.stringify(intent), JSON.stringify(outcome), String(this.ttlSeconds));
    if (typeof existing !== "string") return { recorded: true };
    return { recorded: false, existing: parseRecord(existing) };
  }

  /** Removes this writer's intent for a call that certainly did nothing (refused before it could act). */
  async abandon(key: string, intent: CallIntent): Promise<void> {
    await this.redis.eval(ABANDON, 1, this.keys.idempotency(key), JSON.stringify(intent));
  }

  async remove(key: string): Promise<void> {
    await this.redis.del(this.keys.idempotency(key));
  }
}

/** A record that does not parse is no record: the call is treated as never started. */
function parseRecord(raw: string | null): CallRecord | undefined {
  if (raw === null) return undefined;
  try {
    const parsed = CallRecord.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
