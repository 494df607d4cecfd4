-- A page of a round's attempts, in the order they started (see
-- Async.Attempts).
--
-- KEYS: the round's record, attempts, started, board, entries, members
-- ARGV: the place of the page's first attempt (0 the first), the most
-- attempts to return
--
-- Reply: {the number of attempts, {attempt JSON, 1 if on the board else 0,
-- ...}}, or the error NOTFOUND without the round.
if redis.call('EXISTS', KEYS[1]) == 0 then
  return redis.error_reply('NOTFOUND no such asynchronous round')
end
local from, limit = tonumber(ARGV[1]), tonumber(ARGV[2])
local out = {}
for i, p in ipairs(redis.call('LRANGE', KEYS[3], from, from + limit - 1)) do
  out[2 * i - 1] = redis.call('HGET', KEYS[2], p)
  out[2 * i] = redis.call('HEXISTS', KEYS[6], p)
end
return {redis.call('LLEN', KEYS[3]), out}
