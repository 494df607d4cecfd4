-- Put a player's entry on a round's board, unless they have one (see
-- Async.Finish): O(log N) for N entries, the ZADD's.
--
-- KEYS: the round's record, attempts, started, board, entries, members
-- ARGV: player, the entry's member in the board (its key), the entry (JSON)
--
-- Reply: 1 (on the board now), 0 (the player's first entry stands), or the
-- error NOTFOUND without the round or the player's attempt.
local player, member = ARGV[1], ARGV[2]
-- The record's expiry as a time, not a span: the keys made below expire
-- at the same millisecond however long the script runs.
local expires = redis.call('PEXPIRETIME', KEYS[1])
if expires == -2 then
  return redis.error_reply('NOTFOUND no such asynchronous round')
end
if redis.call('HEXISTS', KEYS[2], player) == 0 then
  return redis.error_reply('NOTFOUND no attempt of the player')
end
if redis.call('HSETNX', KEYS[6], player, member) == 0 then
  return 0
end
redis.call('ZADD', KEYS[4], 0, member)
redis.call('HSET', KEYS[5], player, ARGV[3])
-- The round's first entry makes the board's keys: they expire with the
-- record.
if expires > 0 and redis.call('HLEN', KEYS[6]) == 1 then
  for i = 4, 6 do
    redis.call('PEXPIREAT', KEYS[i], expires)
  end
end
return 1
