-- Read a rating key's ladder (see Ratings.Ladder and Place): first take
-- off it, at most a bound a run, the players whose deviation passed
-- rating.ProvisionalRD before now; then, once none is left, read a page
-- and a player's place.
--
-- KEYS: the key's ratings, ladder, lapses
-- ARGV: now (µs), the most players taken off a run, from, to (places, 0
-- the best; to < from for no page), player ('' for none)
--
-- Reply: {1} when lapsed players may be left: run again; otherwise {0,
-- the ladder's length, {id, rating JSON, ...} from from to to, the
-- player's place or -1}.
local gone = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', '(' .. ARGV[1], 'LIMIT', 0, ARGV[2])
if #gone > 0 then
  redis.call('ZREM', KEYS[2], unpack(gone))
  redis.call('ZREM', KEYS[3], unpack(gone))
end
if #gone == tonumber(ARGV[2]) then
  return {1}
end
local page = {}
if tonumber(ARGV[4]) >= tonumber(ARGV[3]) then -- ZRANGE would read 0 -1 as the whole set
  local ids = redis.call('ZRANGE', KEYS[2], ARGV[3], ARGV[4])
  -- HMGET a thousand at a time: unpack's limit is a few thousand values.
  for lo = 1, #ids, 1000 do
    local vals = redis.call('HMGET', KEYS[1], unpack(ids, lo, math.min(lo + 999, #ids)))
    for j = 1, #vals do
      local i = lo + j - 1
      page[2 * i - 1], page[2 * i] = ids[i], vals[j]
    end
  end
end
local place = -1
if ARGV[5] ~= '' then
  place = redis.call('ZRANK', KEYS[2], ARGV[5]) or -1
end
return {0, redis.call('ZCARD', KEYS[2]), page, place}
