-- Set a player's standing without a move (see Store.SetStanding).
--
-- KEYS[1] the round's standings, KEYS[2] its rank, KEYS[3] its rank members
-- (as in append.lua). ARGV: player, standing, rank member, ttl in ms.
local player = ARGV[1]
redis.call('HSET', KEYS[1], player, ARGV[2])
local old = redis.call('HGET', KEYS[3], player)
if old and old ~= ARGV[3] then
  redis.call('ZREM', KEYS[2], old)
end
redis.call('ZADD', KEYS[2], 0, ARGV[3])
redis.call('HSET', KEYS[3], player, ARGV[3])
for i = 1, 3 do
  redis.call('PEXPIRE', KEYS[i], ARGV[4])
end
return 'OK'
