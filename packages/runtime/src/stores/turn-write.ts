import { LuaScript } from "../redis/lua-script.ts";
import type { RedisClient } from "../redis/redis-client.ts";
import type { CacheBatch } from "@rein/tools";

/** A run's buffered trace events (encoded, TraceLog.encode) and prompt blobs (id, redacted content). */
export interface TraceBatch {
  stream: string;
  seq: string;
  blobs: string;
  ttlSeconds?: number;
  events: readonly string[];
  blobEntries: ReadonlyArray<readonly [string, string]>;
}

/** A step's checkpoint keys, and what a save writes to them when it writes one. */
export interface CheckpointDelta {
  /** The key naming the worker that owns the step now (see CheckpointStore.claim). */
  ownerKey: string;
  /** The run's hash: nothing is written once its `status` says the run ended. */
  runKey: string;
  /** The run's read cache: a key of the run's slot even when the turn writes no entry. */
  cacheKey: string;
  headerKey: string;
  listKeys: readonly [string, string, string];
  ttlSeconds: number;
  write?: {
    header: string;
    lists: readonly [readonly string[], readonly string[], readonly string[]];
    /** The lists are written whole: cleared first. */
    replace: boolean;
  };
}

export interface TurnWrite {
  trace: TraceBatch;
  checkpoint: CheckpointDelta;
  /** The turn's new read-cache entries (StepReadCache.take), written under the same fence. */
  cache?: CacheBatch;
  /** When given, nothing is written unless the step's owner key still holds this token. */
  ownerToken?: string;
  /**
   * Writes even though the run has ended: the step's own record of where its
   * run's end cut it off. Still only while `ownerToken` owns the step, so a
   * worker that lost the step (cut off from Redis, its job taken over) writes
   * nothing into the ended run.
   */
  afterRunEnd?: boolean;
  /**
   * Sets the keys' TTLs. A step sets them on its first write and on its last
   * (the trace's own appends refresh the trace's), not once per item per turn.
   */
  refreshTtl: boolean;
}

// One script, so a turn's trace and its checkpoint land together or not at all,
// and only while the step is still this worker's: a worker whose job another
// took writes nothing. Every key carries the run's hash tag (one slot on a
// cluster). The stream entries get seqs from the same counter as TraceLog's appends.
// Nor once the run has ended or waits for a person (escalated): a step still
// running then is work nobody asked for; a person's resume dispatches it anew.
// The one write after the end, the step's record of where it was cut off, is
// still fenced by the owner: the fence is checked when Redis runs the script,
// so a write a cut-off worker's client queued and sent on reconnect is refused too.
// The turn's read-cache entries ride along, so a tool turn is one command in all.
//   KEYS: owner, trace stream, trace seq, blobs, checkpoint header, messages, observations, records, run, tool cache
//   ARGV: token ('' = no lock), trace ttl, checkpoint ttl ('' = keep), header ('' = no checkpoint),
//         replace, #events, #blobs, #messages, #observations, #records, after run end ('1' = write anyway),
//         #cache entries, cache ttl, then the items in that order
const turnScript = new LuaScript(`
if ARGV[1] ~= '' and redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
local status = redis.call('HGET', KEYS[9], 'status')
if ARGV[11] ~= '1' and (status == 'done' or status == 'failed' or status == 'cancelled' or status == 'escalated') then return -1 end
local at = 14
local events = tonumber(ARGV[6])
local seq = events > 0 and redis.call('INCRBY', KEYS[3], events) - events or 0
for _ = 1, events do
  seq = seq + 1
  redis.call('XADD', KEYS[2], '*', 'seq', seq, 'event', ARGV[at])
  at = at + 1
end
local blobs = tonumber(ARGV[7])
for _ = 1, blobs do
  redis.call('HSETNX', KEYS[4], ARGV[at], ARGV[at + 1])
  at = at + 2
end
if ARGV[2] ~= '' then
  if events > 0 then
    redis.call('EXPIRE', KEYS[2], ARGV[2])
    redis.call('EXPIRE', KEYS[3], ARGV[2])
  end
  if blobs > 0 then redis.call('EXPIRE', KEYS[4], ARGV[2]) end
end
if ARGV[4] ~= '' then
  for list = 0, 2 do
    local key = KEYS[6 + list]
    if ARGV[5] == '1' then redis.call('DEL', key) end
    local count = tonumber(ARGV[8 + list])
    local last = at + count - 1
    while at <= last do
      local upto = math.min(at + 999, last)
      redis.call('RPUSH', key, unpack(ARGV, at, upto))
      at = upto + 1
    end
    if ARGV[3] ~= '' then redis.call('EXPIRE', key, ARGV[3]) end
  end
  if ARGV[3] ~= '' then redis.call('SET', KEYS[5], ARGV[4], 'EX', ARGV[3]) else redis.call('SET', KEYS[5], ARGV[4], 'KEEPTTL') end
end
local entries = tonumber(ARGV[12])
if entries > 0 then
  for _ = 1, entries do
    redis.call('HSET', KEYS[10], ARGV[at], ARGV[at + 1])
    at = at + 2
  end
  redis.call('EXPIRE', KEYS[10], ARGV[13])
end
return 1
`);

/**
 * Writes a worker turn in one round trip: its trace events and blobs and its
 * checkpoint delta, atomically, and only while `ownerToken` owns the step
 * and the run has not ended. Says which, having written nothing, when not.
 */
export async function writeTurn(redis: RedisClient, turn: TurnWrite): Promise<"written" | "taken_over" | "run_ended"> {
  const { trace, checkpoint, cache, ownerToken, refreshTtl, afterRunEnd } = turn;
  const write = checkpoint.write;
  const entries = cache?.entries ?? [];
  if (!write && trace.events.length === 0 && trace.blobEntries.length === 0 && entries.length === 0 && ownerToken === undefined)
    return "written";
  const keys = [
    checkpoint.ownerKey,
    trace.stream,
    trace.seq,
    trace.blobs,
    checkpoint.headerKey,
    ...checkpoint.listKeys,
    checkpoint.runKey,
    checkpoint.cacheKey,
  ];
  const lists = write?.lists ?? [[], [], []];
  const args = [
    ownerToken ?? "",
    refreshTtl && trace.ttlSeconds ? String(trace.ttlSeconds) : "",
    refreshTtl && write ? String(checkpoint.ttlSeconds) : "",
    write?.header ?? "",
    write?.replace ? "1" : "0",
    String(trace.events.length),
    String(trace.blobEntries.length),
    ...lists.map((list) => String(list.length)),
    afterRunEnd ? "1" : "0",
    String(entries.length),
    String(cache?.ttlSeconds ?? ""),
    ...trace.events,
    ...trace.blobEntries.flat(),
    ...lists.flat(),
    ...entries.flat(),
  ];
  const outcome = Number(await turnScript.run(redis, keys, args));
  return outcome === 1 ? "written" : outcome === 0 ? "taken_over" : "run_ended";
}
