import { LuaScript } from "../redis/lua-script.ts";
// Every status change is one script over the approval's hash, so two
// deciders, or a decider racing the expiry or a consumer, cannot both win.

/** KEYS[1] approval; ARGV: nowMs. Turns an overdue pending approval into expired. */
export const EXPIRE_IF_DUE = new LuaScript(`
if redis.call('HGET', KEYS[1], 'status') == 'pending'
  and tonumber(redis.call('HGET', KEYS[1], 'expiresAtMs')) <= tonumber(ARGV[1]) then
  redis.call('HSET', KEYS[1], 'status', 'expired')
end
return redis.call('HGET', KEYS[1], 'status')
`);

/** KEYS[1] approval. A pending approval of a run that ended expires: its action will never be taken. */
export const EXPIRE_PENDING = new LuaScript(`
if redis.call('HGET', KEYS[1], 'status') == 'pending' then
  redis.call('HSET', KEYS[1], 'status', 'expired')
end
return redis.call('HGET', KEYS[1], 'status')
`);

/**
 * KEYS[1] approval; ARGV: decision, approver, note, reason, decidedAt, nowMs,
 * signature, actionHash, runId, stepId, expiresAtMs.
 * Only pending → approved | denied, and only for the action, run, step and
 * expiry the decider read and signed. Returns 'ok' or the status that blocked it.
 */
export const DECIDE = new LuaScript(`
local fields = redis.call('HMGET', KEYS[1], 'status', 'expiresAtMs', 'actionHash', 'runId', 'stepId')
local status = fields[1]
if not status then return 'missing' end
if status == 'pending' and tonumber(fields[2]) <= tonumber(ARGV[6]) then
  redis.call('HSET', KEYS[1], 'status', 'expired')
  return 'expired'
end
if status ~= 'pending' then return status end
if fields[2] ~= ARGV[11] or fields[3] ~= ARGV[8] or fields[4] ~= ARGV[9] or fields[5] ~= ARGV[10] then return 'changed' end
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'approver', ARGV[2], 'decidedAt', ARGV[5], 'signature', ARGV[7])
if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'note', ARGV[3]) end
if ARGV[4] ~= '' then redis.call('HSET', KEYS[1], 'reason', ARGV[4]) end
return 'ok'
`);

/**
 * KEYS[1] approval; ARGV: actionHash, runId, stepId, consumedAt, call ('' = none).
 * Only an approved approval for exactly this action, run and step becomes
 * consumed, and only once; it records which call consumed it, and that same
 * call (re-issued by the next worker after the one that consumed it was
 * lost) finds it consumed by itself and goes on. Returns 'ok', or the status
 * that blocked it (distinct from 'ok', so a second consumer never reads success).
 */
export const CONSUME = new LuaScript(`
local fields = redis.call('HMGET', KEYS[1], 'status', 'actionHash', 'runId', 'stepId', 'consumedBy')
if fields[2] ~= ARGV[1] or fields[3] ~= ARGV[2] or fields[4] ~= ARGV[3] then return fields[1] and 'mismatch' or 'missing' end
if fields[1] == 'consumed' and ARGV[5] ~= '' and fields[5] == ARGV[5] then return 'ok' end
if fields[1] ~= 'approved' then return fields[1] end
redis.call('HSET', KEYS[1], 'status', 'consumed', 'consumedAt', ARGV[4])
if ARGV[5] ~= '' then redis.call('HSET', KEYS[1], 'consumedBy', ARGV[5]) end
return 'ok'
`);
