-- Count a game in a player's record, which the caller computed from the
-- record it read, unless the game is counted already or the record changed
-- meanwhile (see Challenges.AddResult); and keep the result among the
-- player's recent ones, the last of them by when they finished.
--
-- KEYS[1] the player's records (hash variant -> record JSON)
-- KEYS[2] the games counted lately (sorted set game id -> when, ms)
-- KEYS[3] the player's recent results (sorted set result JSON -> finished, ms)
-- ARGV: variant, the record as read ("" for none), the new record, game id,
-- now (ms), the time (ms) at and before which counted games are forgotten,
-- ttl (ms), the result (JSON), when it finished (ms), how many recent
-- results to keep
--
-- Reply: 1 (counted), 0 (counted already), -1 (the record changed: read
-- it again).
if redis.call('ZSCORE', KEYS[2], ARGV[4]) then
  return 0
end
if (redis.call('HGET', KEYS[1], ARGV[1]) or '') ~= ARGV[2] then
  return -1
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[6])
redis.call('ZADD', KEYS[3], ARGV[9], ARGV[8])
redis.call('ZREMRANGEBYRANK', KEYS[3], 0, -(tonumber(ARGV[10]) + 1))
redis.call('PEXPIRE', KEYS[1], ARGV[7])
redis.call('PEXPIRE', KEYS[2], ARGV[7])
redis.call('PEXPIRE', KEYS[3], ARGV[7])
return 1
