-- Apply a rated round under one rating key, once (see Ratings.Apply): if
-- the round was not applied yet and every player's stored rating has the
-- rounds the round was computed from, write each player's rating, a point
-- of their history, and their place on the ladder or none.
--
-- KEYS: the key's ratings, ladder, lapses, the round's record, then each
-- player's history, in the order of ARGV's players
-- ARGV: the round's record (JSON), how long to keep it (ms), the last
-- history index kept, then six a player: id, the rounds before, the
-- rating and name to store (JSON), the history point, the ladder score
-- ('' off the ladder) and the lapse score
--
-- Reply: {1} applied; {0, record} applied already, with the record kept;
-- {2} a player's rounds moved: nothing written. (Not error replies: an
-- error starting "MOVED" is Redis Cluster's redirection.)
local kept = redis.call('GET', KEYS[4])
if kept then
  return {0, kept}
end
local n = (#ARGV - 3) / 6
for i = 0, n - 1 do
  local a = 3 + 6 * i
  local cur = redis.call('HGET', KEYS[1], ARGV[a + 1])
  local rounds = 0
  if cur then
    rounds = cjson.decode(cur).rounds
  end
  if rounds ~= tonumber(ARGV[a + 2]) then
    return {2}
  end
end
for i = 0, n - 1 do
  local a = 3 + 6 * i
  local id, hist = ARGV[a + 1], KEYS[5 + i]
  redis.call('HSET', KEYS[1], id, ARGV[a + 3])
  redis.call('LPUSH', hist, ARGV[a + 4])
  redis.call('LTRIM', hist, 0, ARGV[3])
  if ARGV[a + 5] == '' then
    redis.call('ZREM', KEYS[2], id)
    redis.call('ZREM', KEYS[3], id)
  else
    redis.call('ZADD', KEYS[2], ARGV[a + 5], id)
    redis.call('ZADD', KEYS[3], ARGV[a + 6], id)
  end
end
redis.call('SET', KEYS[4], ARGV[1], 'PX', ARGV[2])
return {1}
