import { LuaScript } from "../redis/lua-script.ts";
import type { RedisClient } from "../redis/redis-client.ts";
import { ReinError } from "@rein/contracts";
import { RunState, STEPS_STOPPED_STATUSES } from "@rein/contracts/run";
import { awaitedJobs } from "../queues/awaited-jobs.ts";
import type { RunEnded } from "../queues/run-end-watch.ts";
import type { RedisKeys } from "../redis/keys.ts";
import { ActiveRuns } from "./active-runs.ts";

// Writes only when the stored version is the one the writer read, and
// appends the transition's trace events in the same script: a controller
// that dies mid-event leaves either both or neither, never a state whose
// trace is missing. Every key it touches is the run's (one cluster slot).
// A writer that lost the race gets the state as stored now in the reply
// (0 when the run is gone), so it re-applies its change without a read.
// The status is kept beside the state so that a worker's turn write can
// refuse to land in an ended run without parsing the whole state, and so are
// the keys of the jobs the run waits for (`awaiting`), so that a role's
// intake admits a job with one short read (awaited-jobs.ts). Leases on jobs
// the write asks for that the writer's process will run itself (in-process
// hand-offs) are taken in it too, each only if free: a lease then exists
// only for a job a landed write asked for. The write
// that moves a run into a status that stops its steps also publishes that on
// the run-ended channel, in the same script: a worker running one of its
// steps hears of it at once (RunEndWatch), and can never hear of it before
// the status it would check is stored.
//   KEYS: run, trace stream, trace seq, then the leases
//   ARGV: expected version, version, state, trace ttl, status, run-ended channel, its message, awaiting,
//         lease holder, lease ms, then the events
//   Returns, when written, 1 and then 1 or 0 for each lease: taken, or another holder's.
const compareAndSet = new LuaScript(`
local stored = redis.call('HMGET', KEYS[1], 'version', 'status')
local current, before = stored[1], stored[2]
if (current == false and ARGV[1] ~= '-1') or (current ~= false and current ~= ARGV[1]) then
  return redis.call('HGET', KEYS[1], 'state') or 0
end
local stops = {${STEPS_STOPPED_STATUSES.map((status) => `['${status}'] = true`).join(", ")}}
redis.call('HSET', KEYS[1], 'version', ARGV[2], 'state', ARGV[3], 'status', ARGV[5], 'awaiting', ARGV[8])
local events = #ARGV - 10
local seq = events > 0 and redis.call('INCRBY', KEYS[3], events) - events or 0
for i = 11, #ARGV do
  seq = seq + 1
  redis.call('XADD', KEYS[2], '*', 'seq', seq, 'event', ARGV[i])
end
if events > 0 and ARGV[4] ~= '' then
  redis.call('EXPIRE', KEYS[2], ARGV[4])
  redis.call('EXPIRE', KEYS[3], ARGV[4])
end
if stops[ARGV[5]] and not (before and stops[before]) then
  redis.call('PUBLISH', ARGV[6], ARGV[7])
end
local written = {1}
for i = 4, #KEYS do
  written[#written + 1] = redis.call('SET', KEYS[i], ARGV[9], 'PX', ARGV[10], 'NX') and 1 or 0
end
return written
`);
/**
 * What `saveOrRead` did: wrote the state (as `json`, with `leased`, for each
 * lease asked, whether it was taken), or found the run moved on to `current` (null: gone).
 */
export type SaveOutcome = { saved: true; json: string; leased: boolean[] } | { saved: false; current: RunState | null };

/** Leases a write takes for its writer, each only if free (HandoffLeases' keys). */
export interface LeaseWrite {
  keys: readonly string[];
  holder: string;
  ttlMs: number;
}

/** Trace events written atomically with a state (see TraceLog.encode). */
export interface TraceWrite {
  events: readonly string[];
  ttlSeconds?: number;
}

/** RunState in Redis, written with compare-and-set on `version`. */
export class RunStore {
  /** The runs not yet ended, for the controller's re-drive sweep; the controller records each write it lands. */
  readonly active: ActiveRuns;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
  ) {
    this.active = new ActiveRuns(redis, keys);
  }

  async get(runId: string): Promise<RunState | null> {
    const raw = await this.redis.hget(this.keys.run(runId), "state");
    return raw === null ? null : parseStored(runId, raw);
  }

  async require(runId: string): Promise<RunState> {
    const state = await this.get(runId);
    if (!state) throw new ReinError("not_found", `no run ${runId}; expected the id printed by \`rein submit\``);
    return state;
  }

  /**
   * Creates a run (version 0), with `trace`, its first events, in the same
   * script; fails if one with this id exists. The index entries are written
   * first, in commands of their own (the indexes are in other cluster slots):
   * a crash in between leaves entries without a run, which readers skip and
   * prune removes, never a run that prune or the re-drive sweep cannot find.
   */
  async create(state: RunState, trace?: TraceWrite): Promise<void> {
    const valid = RunState.parse(state);
    await Promise.all([this.redis.zadd(this.keys.runIndex(), "NX", Date.parse(valid.createdAt), valid.runId), this.active.record(valid)]);
    const outcome = await this.write(valid, -1, trace);
    if (!outcome.saved) throw conflict(valid.runId, -1);
  }

  /**
   * Saves `state` (whose `version` must be `expectedVersion + 1`) only if the
   * stored version is still `expectedVersion`.
   */
  async save(state: RunState, expectedVersion: number, trace?: TraceWrite): Promise<void> {
    const outcome = await this.saveOrRead(state, expectedVersion, trace);
    if (!outcome.saved) throw conflict(state.runId, expectedVersion);
  }

  /**
   * `save`, with a lost race as an answer instead of an error: the state as
   * stored now comes back from the same round trip, validated as `get`
   * would. On success, the state as written (its JSON).
   */
  async saveOrRead(state: RunState, expectedVersion: number, trace?: TraceWrite, leases?: LeaseWrite): Promise<SaveOutcome> {
    if (state.version !== expectedVersion + 1) {
      throw new ReinError("contract_invalid", `state version ${state.version} must be ${expectedVersion + 1}`);
    }
    return this.write(state, expectedVersion, trace, leases);
  }

  async list(limit = 50): Promise<string[]> {
    return this.redis.zrevrange(this.keys.runIndex(), 0, limit - 1);
  }

  async remove(runId: string): Promise<void> {
    await this.redis.del(this.keys.run(runId));
    await this.redis.zrem(this.keys.runIndex(), runId);
    await this.active.forget(runId);
  }

  // A saved state is not parsed again: it was validated where it entered the
  // process (get, create), and the transition that derives the next one is checked against
  // RunState by its property tests. Re-parsing a 200-step state on every
  // save cost more than the write.
  private async write(state: RunState, expectedVersion: number, trace?: TraceWrite, leases?: LeaseWrite): Promise<SaveOutcome> {
    const json = JSON.stringify(state);
    const keys = [this.keys.run(state.runId), this.keys.trace(state.runId), this.keys.traceSeq(state.runId), ...(leases?.keys ?? [])];
    const written = await compareAndSet.run(this.redis, keys, [
      String(expectedVersion),
      String(state.version),
      json,
      trace?.ttlSeconds ? String(trace.ttlSeconds) : "",
      state.status,
      this.keys.runEnded(),
      JSON.stringify({ runId: state.runId, status: state.status } satisfies RunEnded),
      JSON.stringify(awaitedJobs(state)),
      leases?.holder ?? "",
      String(leases?.ttlMs ?? 0),
      ...(trace?.events ?? []),
    ]);
    if (Array.isArray(written)) return { saved: true, json, leased: written.slice(1).map((taken) => taken === 1) };
    return { saved: false, current: typeof written === "string" ? parseStored(state.runId, written) : null };
  }
}

function parseStored(runId: string, raw: string): RunState {
  const parsed = RunState.safeParse(JSON.parse(raw));
  if (!parsed.success) {
    throw new ReinError("contract_invalid", `stored run ${runId} does not match RunState: ${parsed.error.message}`);
  }
  return parsed.data;
}

const conflict = (runId: string, expectedVersion: number) =>
  new ReinError("version_conflict", `run ${runId} changed since version ${expectedVersion} was read; expected no concurrent writer`, {
    retryable: true,
  });
