-- Read a round's board in one round trip (see Async.Board, BoardRange and
-- PlayerEntry): its counts, the entries at places from to to (0 the
-- first), and a player's place with the entries around it.
--
-- KEYS: the round's record, attempts, started, board, entries, members
-- ARGV: from, to, player ("" for none), around (places each side; from,
-- to and around are integers, from and around at least 0)
--
-- Reply: {entries, attempts, {member, entry JSON, ...} from from to to,
-- the player's place or -1, the place of the first entry around it,
-- {member, entry JSON, ...} around it}, or the error NOTFOUND without the
-- round. An entry's player is what follows its member's first ':'.
if redis.call('EXISTS', KEYS[1]) == 0 then
  return redis.error_reply('NOTFOUND no such asynchronous round')
end

local function entries(from, to)
  local out = {}
  if to < from then
    return out -- ZRANGE would read 0 -1 as the whole set
  end
  for i, m in ipairs(redis.call('ZRANGE', KEYS[4], from, to)) do
    local colon = string.find(m, ':', 1, true) or 0
    out[2 * i - 1] = m
    out[2 * i] = redis.call('HGET', KEYS[5], string.sub(m, colon + 1))
  end
  return out
end

local reply = {
  redis.call('ZCARD', KEYS[4]), redis.call('HLEN', KEYS[2]),
  entries(tonumber(ARGV[1]), tonumber(ARGV[2])), -1, 0, {},
}
if ARGV[3] ~= '' then
  local m = redis.call('HGET', KEYS[6], ARGV[3])
  local rank = m and redis.call('ZRANK', KEYS[4], m)
  if rank then
    local around = tonumber(ARGV[4])
    local lo = math.max(rank - around, 0)
    reply[4], reply[5], reply[6] = rank, lo, entries(lo, rank + around)
  end
end
return reply
