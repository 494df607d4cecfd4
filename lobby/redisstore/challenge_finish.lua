-- Put a player's entry on a round's board, unless they have one (see
-- Async.Finish): O(log N) for N entries, the ZADD's.
--
-- KEYS: the round's record, attempts, started, board, entries, members
-- ARGV: player, the entry's member in the board (its key), the entry (JSON)
--
-- Reply: 1 (on the board now), 0 (the player's first entry stands), or the
-- error NOTFOUND without the round or the player's attempt.
local player, member = ARGV[1], ARGV[2]
local ttl = redis.call('PTTL', KEYS[1])
if ttl == -2 then
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
if ttl > 0 and redis.call('HLEN', KEYS[6]) == 1 then
  for i = 4, 6 do
    redis.call('PEXPIRE', KEYS[i], ttl)
  end
end
return 1
