import type { Redis } from "ioredis";
import type { RedisKeys } from "../redis/keys.ts";
import { RecordedResult } from "../tools/recorded-result.ts";

export interface IdempotencyStoreOptions {
  /** Seconds to keep a record. @defaultValue 7 days */
  ttlSeconds?: number;
}

export type RecordOutcome = { recorded: true } | { recorded: false; existing: RecordedResult | undefined };

/**
 * What each side-effecting call produced, by idempotency key
 * (`runId:stepId:attempt:index`). A step re-run after a crash finds its
 * attempt's record and replays it instead of performing the effect again; a
 * retry is a new attempt, so its calls run afresh and get records of their own. Records are written
 * with SET NX, so the first writer's result is the one every re-run sees.
 */
export class IdempotencyStore {
  private readonly ttlSeconds: number;

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    options: IdempotencyStoreOptions = {},
  ) {
    this.ttlSeconds = options.ttlSeconds ?? 7 * 24 * 3600;
  }

  async get(key: string): Promise<RecordedResult | undefined> {
    const raw = await this.redis.get(this.keys.idempotency(key));
    if (raw === null) return undefined;
    const parsed = RecordedResult.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : undefined;
  }

  async record(key: string, result: RecordedResult): Promise<RecordOutcome> {
    const written = await this.redis.set(this.keys.idempotency(key), JSON.stringify(result), "EX", this.ttlSeconds, "NX");
    if (written === "OK") return { recorded: true };
    return { recorded: false, existing: await this.get(key) };
  }

  async remove(key: string): Promise<void> {
    await this.redis.del(this.keys.idempotency(key));
  }
}
