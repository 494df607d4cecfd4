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
-- The record's expiry as a time, not a span: the keys made below expire
-- at the same millisecond however long the script runs.
local expires = redis.call('PEXPIRETIME', KEYS[1])
if expires == -2 then
  return redis.error_reply('NOTFOUND no such asynchronous round')
end
if redis.call('HSETNX', KEYS[2], player, ARGV[2]) == 0 then
  return {0, redis.call('HGET', KEYS[2], player), redis.call('HEXISTS', KEYS[6], player)}
end
redis.call('RPUSH', KEYS[3], player)
-- The round's first attempt makes both keys: they expire with the record.
if expires > 0 and redis.call('LLEN', KEYS[3]) == 1 then
  redis.call('PEXPIREAT', KEYS[2], expires)
  redis.call('PEXPIREAT', KEYS[3], expires)
end
return {1, ARGV[2], 0}
