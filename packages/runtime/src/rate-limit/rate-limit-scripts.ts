import { LuaScript } from "../redis/lua-script.ts";
// The fleet's rate budget as token buckets, one per dimension (requests, input, output and all
// tokens per minute), refilled continuously as the providers' own are (Anthropic documents a
// token bucket). Every script reads the clock of the Redis server (one clock for the fleet),
// or ARGV[1] in tests, and takes the configured limits in ARGV[2..6] (-1: not configured).
// KEYS: state (hash: levels, learned limits, pause, counters), in-flight (zset: id → lease end),
// waiters (zset: id → priority), seen (zset: waiter → last ask), runs (zset: run → last grant),
// reservations (hash: id → "input,output" estimate). All share one hash tag, so one slot.

const PRELUDE = `
local state, inflight, waiters, seen, runs, reservations = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local now
if ARGV[1] ~= '' then now = tonumber(ARGV[1]) else
  local t = redis.call('TIME'); now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local dims = {'requests', 'inputTokens', 'outputTokens', 'tokens'}
local configured = {requests = tonumber(ARGV[2]), inputTokens = tonumber(ARGV[3]), outputTokens = tonumber(ARGV[4]), tokens = tonumber(ARGV[5])}
local maxInFlight = tonumber(ARGV[6])
-- Never above the configured limit; a limit the provider stated applies where none is configured.
local function cap(d)
  local c = configured[d]
  local learned = redis.call('HGET', state, d .. ':limit')
  if c < 0 then c = nil end
  if learned then
    learned = tonumber(learned)
    if c == nil or learned < c then c = learned end
  end
  return c
end
local function level(d, c)
  local stored = redis.call('HGET', state, d .. ':level')
  if not stored then return c end
  local at = tonumber(redis.call('HGET', state, d .. ':at') or now)
  return math.min(c, tonumber(stored) + math.max(0, now - at) * c / 60000)
end
local function store(d, value)
  redis.call('HSET', state, d .. ':level', tostring(value), d .. ':at', tostring(now))
end
local function forgetExpired()
  local expired = redis.call('ZRANGEBYSCORE', inflight, '-inf', now)
  for _, id in ipairs(expired) do redis.call('HDEL', reservations, id) end
  redis.call('ZREMRANGEBYSCORE', inflight, '-inf', now)
end
`;

/**
 * ARGV[7..]: id, run, input, output, lease ms, waited ms, safety ms.
 * Grants (1) or says how long to wait and why (0, ms, reason). A call keeps
 * its place in line across tries; a run served in the last ten minutes goes
 * before a new one, and calls of one class go in the order they arrived.
 */
export const RESERVE = new LuaScript(`${PRELUDE}
local id, run = ARGV[7], ARGV[8]
local demand = {requests = 1, inputTokens = tonumber(ARGV[9]), outputTokens = tonumber(ARGV[10])}
demand.tokens = demand.inputTokens + demand.outputTokens
local leaseMs, waitedMs, safetyMs = tonumber(ARGV[11]), tonumber(ARGV[12]), tonumber(ARGV[13])
forgetExpired()
local stale = redis.call('ZRANGEBYSCORE', seen, '-inf', now - 10000)
for _, gone in ipairs(stale) do redis.call('ZREM', waiters, gone); redis.call('ZREM', seen, gone) end
local served = run ~= '' and redis.call('ZSCORE', runs, run)
local class = (served and tonumber(served) > now - 600000) and 0 or 1
redis.call('ZADD', waiters, 'NX', class * 1e13 + now, id)
redis.call('ZADD', seen, now, id)
local ahead = redis.call('ZRANK', waiters, id)
local paused = tonumber(redis.call('HGET', state, 'pausedUntil') or '0')
if paused > now then return {0, paused - now, 'paused'} end
local waitMs, reason, levels, caps = 0, '', {}, {}
for _, d in ipairs(dims) do
  local c = cap(d)
  if c then
    caps[d] = c
    levels[d] = level(d, c)
    -- A margin of safetyMs of refill, so calls that reach the provider a little closer together than they left still fit.
    local margin = c * safetyMs / 60000
    local need = math.min(demand[d], c - margin)
    local why = d
    local short = need + margin - levels[d]
    if short <= 0 and d == 'requests' and ahead > 0 then
      -- Room for this call, but not for the calls ahead of it in line as well.
      short = need * (ahead + 1) + margin - levels[d]
      why = 'queued'
    end
    if short > 0 then
      local ms = math.ceil(short * 60000 / c)
      if ms > waitMs then waitMs = ms; reason = why end
    end
  end
end
if maxInFlight > 0 then
  local flying = redis.call('ZCARD', inflight)
  if flying + ahead >= maxInFlight then
    if waitMs < 250 then waitMs = 250 end
    if reason == '' then reason = (flying >= maxInFlight) and 'in_flight' or 'queued' end
  end
end
if waitMs > 0 then return {0, waitMs, reason} end
for d, c in pairs(caps) do store(d, levels[d] - demand[d]) end
redis.call('ZADD', inflight, now + leaseMs, id)
redis.call('HSET', reservations, id, ARGV[9] .. ',' .. ARGV[10])
redis.call('ZREM', waiters, id)
redis.call('ZREM', seen, id)
if run ~= '' then redis.call('ZADD', runs, now, run) end
redis.call('ZREMRANGEBYSCORE', runs, '-inf', now - 600000)
redis.call('HINCRBY', state, 'granted', 1)
if waitedMs > 0 then
  redis.call('HINCRBY', state, 'waits', 1)
  redis.call('HINCRBY', state, 'waitedMs', waitedMs)
end
for i = 1, 6 do redis.call('PEXPIRE', KEYS[i], 86400000) end
return {1, 0, ''}
`);

/** ARGV[7..]: id, input used, output used. The estimate is replaced by what was used; the in-flight slot is freed. */
export const SETTLE = new LuaScript(`${PRELUDE}
local id = ARGV[7]
local estimate = redis.call('HGET', reservations, id)
redis.call('ZREM', inflight, id)
if not estimate then return 0 end
redis.call('HDEL', reservations, id)
local estimatedIn, estimatedOut = string.match(estimate, '^(%d+),(%d+)$')
local refund = {inputTokens = tonumber(estimatedIn) - tonumber(ARGV[8]), outputTokens = tonumber(estimatedOut) - tonumber(ARGV[9])}
refund.tokens = refund.inputTokens + refund.outputTokens
for _, d in ipairs({'inputTokens', 'outputTokens', 'tokens'}) do
  local c = cap(d)
  if c then store(d, math.min(c, level(d, c) + refund[d])) end
end
return 1
`);

/** ARGV[7..]: for requests, input, output and all tokens in turn: limit, remaining, reset (-1: not said). */
export const OBSERVE = new LuaScript(`${PRELUDE}
for i, d in ipairs(dims) do
  local limit, remaining = tonumber(ARGV[4 + 3 * i]), tonumber(ARGV[5 + 3 * i])
  if limit >= 0 then redis.call('HSET', state, d .. ':limit', limit) end
  if remaining >= 0 then
    redis.call('HSET', state, d .. ':remaining', remaining, d .. ':seenAt', now)
    local c = cap(d)
    if c then store(d, math.min(level(d, c), remaining)) end
  end
end
redis.call('PEXPIRE', state, 86400000)
return 1
`);

/** ARGV[7]: how long every call to the model waits. */
export const PAUSE = new LuaScript(`${PRELUDE}
local paused = tonumber(redis.call('HGET', state, 'pausedUntil') or '0')
redis.call('HSET', state, 'pausedUntil', math.max(paused, now + tonumber(ARGV[7])))
redis.call('HINCRBY', state, 'rateLimited', 1)
redis.call('PEXPIRE', state, 86400000)
return 1
`);

/** The budget as it stands, refilled to now but not written: flat pairs of name and value. */
export const SNAPSHOT = new LuaScript(`${PRELUDE}
local out = {}
for _, d in ipairs(dims) do
  local c = cap(d)
  if c then table.insert(out, 'available:' .. d); table.insert(out, tostring(level(d, c))) end
  for _, field in ipairs({'limit', 'remaining', 'seenAt'}) do
    local value = redis.call('HGET', state, d .. ':' .. field)
    if value then table.insert(out, 'learned:' .. d .. ':' .. field); table.insert(out, value) end
  end
end
for _, field in ipairs({'pausedUntil', 'granted', 'waits', 'waitedMs', 'rateLimited'}) do
  table.insert(out, field); table.insert(out, redis.call('HGET', state, field) or '0')
end
table.insert(out, 'inFlight'); table.insert(out, tostring(redis.call('ZCOUNT', inflight, '(' .. now, '+inf')))
table.insert(out, 'waiting'); table.insert(out, tostring(redis.call('ZCARD', waiters)))
table.insert(out, 'now'); table.insert(out, tostring(now))
return out
`);
