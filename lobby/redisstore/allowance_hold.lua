-- Hold a member of a bounded set of holds (see Allowances.Hold): a sorted
-- set of member -> until, which expires with its last hold.
--
-- KEYS[1] the holds (sorted set: member -> until, in microseconds)
-- ARGV: member, the most holds, until and now (microseconds, integers)
--
-- Reply: 1 (held) or 0 (refused: the set has the most holds already).
local member, most, untl, now = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[4])
if not redis.call('ZSCORE', KEYS[1], member) and redis.call('ZCARD', KEYS[1]) >= most then
  return 0
end
if untl <= now then
  -- A hold that is over already counts for nothing: it only ends the
  -- member's hold, if it had one.
  redis.call('ZREM', KEYS[1], member)
  return 1
end
redis.call('ZADD', KEYS[1], ARGV[3], member)
local last = tonumber(redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')[2])
redis.call('PEXPIRE', KEYS[1], string.format('%.0f', math.ceil((last - now) / 1000)))
return 1
