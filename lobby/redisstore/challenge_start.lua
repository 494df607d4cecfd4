-- Start a player's one attempt at a round, unless they have one (see
-- Async.StartAttempt).
--
-- KEYS: the round's record, attempts, started, board, entries, members
-- (Async.keys)
-- ARGV: player, attempt (JSON)
--
-- Reply: {1, the attempt, 0} when this call started it, else {0, the
-- attempt that stands, 1 if it is on the board else 0}; or the error
-- NOTFOUND without the round.
local player = ARGV[1]
local ttl = redis.call('PTTL', KEYS[1])
if ttl == -2 then
  return redis.error_reply('NOTFOUND no such asynchronous round')
end
if redis.call('HSETNX', KEYS[2], player, ARGV[2]) == 0 then
  return {0, redis.call('HGET', KEYS[2], player), redis.call('HEXISTS', KEYS[6], player)}
end
redis.call('RPUSH', KEYS[3], player)
-- The round's first attempt makes both keys: they expire with the record.
if ttl > 0 and redis.call('LLEN', KEYS[3]) == 1 then
  redis.call('PEXPIRE', KEYS[2], ttl)
  redis.call('PEXPIRE', KEYS[3], ttl)
end
return {1, ARGV[2], 0}
