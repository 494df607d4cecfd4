-- Put a match on the list of open matches or take it off, as its save at a
-- version said (see Coord.SaveMatch). Runs after the save's compare-and-set,
-- as a command of its own: the list's keys share the hash tag {open}, not
-- the match's.
--
-- KEYS[1] the list: a sorted set of open match ids, scored by their places
--         on it, which grow in the order they joined it
-- KEYS[2] the versions applied: a hash, match id -> the version of the last
--         save applied to the list
-- KEYS[3] the matches closed lately: a sorted set, match id -> when (ms)
-- KEYS[4] the last place given (a string), so that a place is never given
--         twice, even once the matches after it left the list: readers page
--         through the list by place (see Coord.OpenMatches). It has no TTL,
--         and a place is also above every score on the list, in case the
--         key was lost.
-- ARGV: match id, version, '1' (open) or '0', ttl in milliseconds
--
-- Updates of two saves can arrive in the other order (two nodes, each
-- running its save and then this): an update for a version not newer than
-- the last one applied changes nothing, so the list follows the newest
-- save. A resent update is such an update. Closed matches keep their
-- version for ten minutes, far longer than updates can be late, and are
-- forgotten after that. The TTLs of the first three keys are raised to the
-- ttl, never lowered, so the list outlives every record saved into it.
--
-- Replies 1 if the list followed this update, 0 if it was not newer.
local id, v, ttl = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[4])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

local old = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now - 600000, 'LIMIT', 0, 100)
for _, m in ipairs(old) do
  redis.call('HDEL', KEYS[2], m)
  redis.call('ZREM', KEYS[3], m)
end

local seen = tonumber(redis.call('HGET', KEYS[2], id) or '0')
if v <= seen then
  return 0
end
redis.call('HSET', KEYS[2], id, ARGV[2])
if ARGV[3] == '1' then
  redis.call('ZREM', KEYS[3], id)
  if not redis.call('ZSCORE', KEYS[1], id) then
    local score = redis.call('INCR', KEYS[4])
    local top = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
    if top[2] and tonumber(top[2]) >= score then
      score = tonumber(top[2]) + 1
      redis.call('SET', KEYS[4], string.format('%d', score))
    end
    redis.call('ZADD', KEYS[1], string.format('%d', score), id)
  end
else
  redis.call('ZREM', KEYS[1], id)
  redis.call('ZADD', KEYS[3], now, id)
end
for i = 1, 3 do
  if redis.call('PTTL', KEYS[i]) < ttl then
    redis.call('PEXPIRE', KEYS[i], ttl)
  end
end
return 1
