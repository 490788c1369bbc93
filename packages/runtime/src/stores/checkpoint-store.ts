import type { RedisClient } from "../redis/redis-client.ts";
import { z } from "zod";
import { ACTIVE_RUN_RECORD_TTL_SECONDS } from "../config/retention-config.ts";
import { ToolCallRecord, ReinError } from "@rein/contracts";
import { ModelMessage } from "@rein/contracts/model";
import { Observation, StepCheckpoint } from "@rein/contracts/calls";
import type { RedisKeys } from "../redis/keys.ts";
import type { CacheBatch } from "@rein/tools";
import { type CheckpointDelta, type TraceBatch, writeTurn } from "./turn-write.ts";

export interface CheckpointStoreOptions {
  /** Seconds a checkpoint outlives its last write; its run's end deletes it. @defaultValue ACTIVE_RUN_RECORD_TTL_SECONDS (7 days) */
  ttlSeconds?: number;
}

/** How many items of each list the last save wrote. */
export interface CheckpointCounts {
  messages: number;
  observations: number;
  records: number;
}

const LISTS = ["messages", "observations", "records"] as const;

// Built once: a zod schema derived with .omit() per save was rebuilt and recompiled every turn (105 µs against 0.6 µs).
const HeaderFields = StepCheckpoint.omit({ messages: true, observations: true, records: true });
const Header = HeaderFields.extend({
  counts: z.object({ messages: z.number().int(), observations: z.number().int(), records: z.number().int() }),
});

const itemSchemas = { messages: ModelMessage, observations: Observation, records: ToolCallRecord };

/**
 * Worker loop checkpoints in Redis, one per step. The loop's lists (messages,
 * observations, tool calls) only grow, so a save appends what is new and
 * rewrites only a small header: saving after every turn costs the same at
 * turn 200 as at turn 2. Read back whole and validated.
 */
export class CheckpointStore {
  private readonly ttlSeconds: number;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    options: CheckpointStoreOptions = {},
  ) {
    this.ttlSeconds = options.ttlSeconds ?? ACTIVE_RUN_RECORD_TTL_SECONDS;
  }

  /**
   * Saves `checkpoint`. With `since` (what the previous save of this attempt
   * returned), only items past those counts are written; without it the
   * checkpoint is written whole, replacing any other attempt's.
   */
  async save(checkpoint: StepCheckpoint, since?: CheckpointCounts): Promise<CheckpointCounts> {
    // Only what is written is validated: items saved before were checked then.
    const { messages, observations, records, ...header } = checkpoint;
    const rest = HeaderFields.parse(header);
    const lists = { messages, observations, records };
    const counts: CheckpointCounts = { messages: messages.length, observations: observations.length, records: records.length };
    const base = this.keys.checkpoint(checkpoint.runId, checkpoint.stepId);
    const multi = this.redis.multi();
    for (const name of LISTS) {
      const key = `${base}:${name}`;
      if (!since) multi.del(key);
      const fresh = lists[name].slice(since?.[name] ?? 0).map((item) => (itemSchemas[name] as z.ZodType).parse(item));
      if (fresh.length > 0) multi.rpush(key, ...fresh.map((item) => JSON.stringify(item)));
      multi.expire(key, this.ttlSeconds);
    }
    multi.set(base, JSON.stringify({ ...rest, counts }), "EX", this.ttlSeconds);
    await multi.exec();
    return counts;
  }

  /**
   * Makes `token` (the worker's job token) the step's owner: from now on only
   * writes carrying it land (saveTurn), so a worker whose job was taken over
   * stops writing the moment its successor claims the step.
   */
  async claim(runId: string, stepId: string, token: string): Promise<void> {
    await this.redis.set(this.keys.stepOwner(runId, stepId), token, "EX", this.ttlSeconds);
  }

  /**
   * Saves a worker turn in one round trip: `turn.checkpoint` as `save` would
   * (appending past `since`; none for a trace-only write), with the turn's
   * trace batch and read-cache entries, atomically, and only while `ownerToken` owns the step and
   * the run has not ended (or, with `afterRunEnd`, even though it has).
   * Throws `lock_lost` or `run_ended`, having written nothing, when not.
   */
  async saveTurn(turn: {
    runId: string;
    stepId: string;
    checkpoint?: StepCheckpoint;
    since?: CheckpointCounts;
    trace: TraceBatch;
    cache?: CacheBatch;
    ownerToken?: string;
    refreshTtl: boolean;
    afterRunEnd?: boolean;
  }): Promise<CheckpointCounts | undefined> {
    const base = this.keys.checkpoint(turn.runId, turn.stepId);
    const delta: CheckpointDelta = {
      ownerKey: this.keys.stepOwner(turn.runId, turn.stepId),
      runKey: this.keys.run(turn.runId),
      cacheKey: turn.cache?.key ?? this.keys.toolCache(turn.runId),
      headerKey: base,
      listKeys: [`${base}:messages`, `${base}:observations`, `${base}:records`],
      ttlSeconds: this.ttlSeconds,
    };
    let counts = turn.since;
    if (turn.checkpoint) {
      // Not parsed: this process built every field and item (a provider adapter turned
      // the model's reply into typed content blocks, the executor built the observations
      // and records), so a zod parse per item per turn re-checked our own types. What
      // Redis gives back is still validated, in `load`. The header names its fields, so
      // nothing else the loop object may carry is stored.
      const { schemaVersion, runId, stepId, attempt, usage, turns, pending, savedAt, messages, observations, records } = turn.checkpoint;
      const lists = { messages, observations, records };
      counts = { messages: messages.length, observations: observations.length, records: records.length };
      const fresh = (name: (typeof LISTS)[number]) => lists[name].slice(turn.since?.[name] ?? 0).map((item) => JSON.stringify(item));
      const header = { schemaVersion, runId, stepId, attempt, usage, turns, pending, savedAt, counts };
      delta.write = {
        header: JSON.stringify(header),
        lists: [fresh("messages"), fresh("observations"), fresh("records")],
        replace: !turn.since,
      };
    }
    const written = await writeTurn(this.redis, {
      trace: turn.trace,
      checkpoint: delta,
      cache: turn.cache,
      ownerToken: turn.ownerToken,
      refreshTtl: turn.refreshTtl,
      afterRunEnd: turn.afterRunEnd,
    });
    if (written === "taken_over") {
      throw new ReinError(
        "lock_lost",
        `step ${turn.stepId} of run ${turn.runId} is no longer this worker's (its job was taken over); nothing of the turn was written`,
      );
    }
    if (written === "run_ended") {
      throw new ReinError("run_ended", `run ${turn.runId} has ended while step ${turn.stepId} ran; nothing of the turn was written`);
    }
    return counts;
  }

  /** The checkpoint of this attempt, or null (none, or one of an earlier attempt). */
  async load(runId: string, stepId: string, attempt: number): Promise<StepCheckpoint | null> {
    const base = this.keys.checkpoint(runId, stepId);
    const raw = await this.redis.get(base);
    if (raw === null) return null;
    const header = Header.safeParse(JSON.parse(raw));
    if (!header.success) throw malformed(runId, stepId, header.error.issues[0]?.message);
    if (header.data.attempt !== attempt) return null;
    const { counts, ...rest } = header.data;
    const read = async <T>(name: (typeof LISTS)[number], schema: z.ZodType<T>): Promise<T[]> => {
      const items = await this.redis.lrange(`${base}:${name}`, 0, counts[name] - 1);
      if (items.length !== counts[name]) throw malformed(runId, stepId, `${name} holds ${items.length} of ${counts[name]} items`);
      return items.map((item) => schema.parse(JSON.parse(item)));
    };
    const parsed = StepCheckpoint.safeParse({
      ...rest,
      messages: await read("messages", itemSchemas.messages),
      observations: await read("observations", itemSchemas.observations),
      records: await read("records", itemSchemas.records),
    });
    if (!parsed.success) throw malformed(runId, stepId, parsed.error.issues[0]?.message);
    return parsed.data;
  }

  async remove(runId: string, stepId: string): Promise<void> {
    await this.redis.del(...checkpointKeys(this.keys, runId, stepId));
  }
}

/** Every key a step's checkpoint is stored under: the header, its lists, and the step's owner. */
export function checkpointKeys(keys: RedisKeys, runId: string, stepId: string): string[] {
  const base = keys.checkpoint(runId, stepId);
  return [base, ...LISTS.map((name) => `${base}:${name}`), keys.stepOwner(runId, stepId)];
}

const malformed = (runId: string, stepId: string, why: string | undefined) =>
  new ReinError("contract_invalid", `the checkpoint of ${runId}/${stepId} is malformed: ${why ?? "invalid"}`);
