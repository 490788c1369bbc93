import { z } from "zod";
import { ACTIVE_RUN_RECORD_TTL_SECONDS } from "../config/retention-config.ts";
import { ReinError } from "@rein/contracts";
import { type CallIntent, CallRecord, type RecordedOutcome } from "@rein/contracts/calls";
import { LuaScript } from "../redis/lua-script.ts";
import type { RedisClient } from "../redis/redis-client.ts";
import type { RedisKeys } from "../redis/keys.ts";
import type { BeginOutcome, IdempotencyLog, RecordOutcome, StepOwner } from "@rein/tools";
import { fenceKeys, fenceRefusal, OWNER_FENCE_LUA, RUN_ACTIVE_LUA } from "./step-owner-fence.ts";

export interface IdempotencyStoreOptions {
  /** Seconds to keep a record while its run goes on; its run's retirement shortens it. @defaultValue ACTIVE_RUN_RECORD_TTL_SECONDS (7 days) */
  ttlSeconds?: number;
}

// Every write script: KEYS record, the run's set of record keys[, step owner[, run]]; ARGV[1] the owner's
// token ('' unfenced), then its own. An intent is written only where there is none, and not once the run has
// ended: no effect starts in an ended run. Each record written is listed in the run's set, which its retirement reads.
const LIST_RECORD = `
redis.call('SADD', KEYS[2], KEYS[1])
redis.call('EXPIRE', KEYS[2], ARGV[3])`;

const BEGIN = new LuaScript(`${OWNER_FENCE_LUA}${RUN_ACTIVE_LUA}
if redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3], 'NX') then${LIST_RECORD}
  return {'begun'}
end
return {'exists', redis.call('GET', KEYS[1])}`);

const RESTART = new LuaScript(`${OWNER_FENCE_LUA}${RUN_ACTIVE_LUA}
redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])${LIST_RECORD}
return {'begun'}`);

// Replaces the intent with the outcome only while the key still holds this writer's intent (or nothing).
// Not refused once the run has ended: the effect happened, and its owner says how it ended. The outcome
// keeps its intent's expiry, which the run's retirement may have shortened.
const FINISH = new LuaScript(`${OWNER_FENCE_LUA}
local current = redis.call('GET', KEYS[1])
if current == ARGV[2] then
  redis.call('SET', KEYS[1], ARGV[3], 'KEEPTTL')
  return {'recorded'}
end
if current == false then
  redis.call('SET', KEYS[1], ARGV[3], 'EX', ARGV[4])
  redis.call('SADD', KEYS[2], KEYS[1])
  redis.call('EXPIRE', KEYS[2], ARGV[4])
  return {'recorded'}
end
return {'exists', current}`);

const ABANDON = new LuaScript(`${OWNER_FENCE_LUA}
if redis.call('GET', KEYS[1]) == ARGV[2] then redis.call('DEL', KEYS[1]) end
return {'abandoned'}`);

/** What every script above replies: its verdict, then the record it found, if any. */
const ScriptReply = z.tuple([z.string()], z.string().nullable());

/**
 * Side-effecting calls by idempotency key (`runId:stepId:attempt:index`):
 * first the intent, written before the call starts, then the outcome that
 * replaces it when the call ends. A step re-run after a crash finds its
 * attempt's records: an outcome is replayed instead of performing the effect
 * again; an intent alone means the effect may or may not have happened. A
 * retry is a new attempt, so its calls get records of their own. The first
 * writer wins: an intent is written only where there is no record, an
 * outcome only over its own intent.
 *
 * Given the step's `owner`, every write lands only while that worker still
 * owns the step: a worker whose job another took over starts no effect and
 * records no outcome, and learns it (`lock_lost`) at once. An intent is not
 * written once the run has ended either (`run_ended`).
 *
 * A record is kept `ttlSeconds` while its run goes on; each key is also
 * listed in the run's set (`RedisKeys.runIdempotency`), so the run's
 * retirement finds them and shortens them to `retention.runTtlSeconds`.
 */
export class IdempotencyStore implements IdempotencyLog {
  private readonly ttlSeconds: number;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    options: IdempotencyStoreOptions = {},
  ) {
    this.ttlSeconds = options.ttlSeconds ?? ACTIVE_RUN_RECORD_TTL_SECONDS;
  }

  async get(key: string): Promise<CallRecord | undefined> {
    return parseRecord(await this.redis.get(this.keys.idempotency(key)));
  }

  /** Records that the call is about to start, unless the key already holds a record, which is returned instead. */
  async begin(key: string, intent: CallIntent, owner?: StepOwner): Promise<BeginOutcome> {
    const reply = await this.fenced(BEGIN, key, owner, true, "the call's intent", JSON.stringify(intent), String(this.ttlSeconds));
    if (reply[0] === "begun") return { begun: true };
    return { begun: false, existing: parseRecord(reply[1] ?? null) };
  }

  /**
   * Takes over a key whose intent was left by a cut-off run of an idempotent
   * call, which is about to run again.
   */
  async restart(key: string, intent: CallIntent, owner?: StepOwner): Promise<void> {
    await this.fenced(RESTART, key, owner, true, "the call's intent", JSON.stringify(intent), String(this.ttlSeconds));
  }

  /** Replaces this writer's intent with the call's outcome; if another writer's record is there, that record is returned and kept. */
  async finish(key: string, intent: CallIntent, outcome: RecordedOutcome, owner?: StepOwner): Promise<RecordOutcome> {
    const reply = await this.fenced(
      FINISH,
      key,
      owner,
      false,
      "the call's outcome",
      JSON.stringify(intent),
      JSON.stringify(outcome),
      String(this.ttlSeconds),
    );
    if (reply[0] === "recorded") return { recorded: true };
    return { recorded: false, existing: parseRecord(reply[1] ?? null) };
  }

  /** Removes this writer's intent for a call that certainly did nothing (refused before it could act). */
  async abandon(key: string, intent: CallIntent, owner?: StepOwner): Promise<void> {
    await this.fenced(ABANDON, key, owner, false, "the call's abandonment", JSON.stringify(intent));
  }

  private async fenced(
    script: LuaScript,
    key: string,
    owner: StepOwner | undefined,
    run: boolean,
    what: string,
    ...args: string[]
  ): Promise<[string, ...(string | null)[]]> {
    const record = this.keys.idempotency(key);
    const keys = [record, this.keys.runIdempotency(runIdOf(key)), ...fenceKeys(this.keys, owner, run)];
    const reply = await script.run(this.redis, keys, [owner?.token ?? "", ...args]);
    const refused = fenceRefusal(reply, owner, what);
    if (refused) throw refused;
    const parsed = ScriptReply.safeParse(reply);
    if (!parsed.success)
      throw new ReinError(
        "contract_invalid",
        `the idempotency script for ${what} replied ${JSON.stringify(reply)}; expected its verdict, then the record it found`,
      );
    return parsed.data;
  }

  async remove(key: string): Promise<void> {
    await this.redis.del(this.keys.idempotency(key));
  }
}

/** The run an idempotency key (`runId:stepId:attempt:index`) belongs to. */
function runIdOf(key: string): string {
  const split = key.indexOf(":");
  return split === -1 ? key : key.slice(0, split);
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
