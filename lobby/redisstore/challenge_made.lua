-- Index a challenge under the player who made it (see Challenges.Create),
-- forgetting first the entries of the player's challenges expired by now:
-- the index holds no more than the challenges the store keeps, and lives
-- as long as the last of them.
--
-- KEYS[1] the player's challenges (sorted set id -> opens at, ms)
-- KEYS[2] the same ids -> when they expire (sorted set, ms)
-- ARGV: id, opens at (ms), expires at (ms), now (ms)
--
-- Reply: 1.
while true do
  local gone = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[4], 'LIMIT', 0, 500)
  if #gone == 0 then
    break
  end
  redis.call('ZREM', KEYS[1], unpack(gone))
  redis.call('ZREM', KEYS[2], unpack(gone))
end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
local last = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
local ttl = math.max(tonumber(last[2]) - tonumber(ARGV[4]), 1)
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('PEXPIRE', KEYS[2], ttl)
return 1
