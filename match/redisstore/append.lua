-- Append one entry to a player's move log and set the player's standing,
-- atomically (see Store.Append).
--
-- KEYS[1] the player's log (list of "seq|at_ms|move")
-- KEYS[2] the round's writer epochs (hash player -> decimal epoch)
-- KEYS[3] the round's standings (hash player -> standing JSON)
-- KEYS[4] the round's rank (sorted set, every score 0, member = rank key)
-- KEYS[5] the round's rank members (hash player -> member in KEYS[4])
-- KEYS[6] the round's closed marker (exists once CloseRound ran)
-- ARGV: player, epoch (decimal, no leading zeros), seq, entry, standing,
--       rank member, ttl in milliseconds
--
-- Replies: "OK" (appended), "DUP" (the identical entry is already at seq:
-- a retry, nothing changed), or an error whose code is STALE, CLOSED,
-- SEQCONFLICT or SEQGAP. Every key written gets the ttl, less at most a
-- minute (or a sixtieth of the ttl, if shorter): the five keys of an append
-- get it again only when the log's expiry has fallen that far behind, so
-- that a player's appends renew them about once a minute, not each time
-- (five PEXPIREs a move, each also written to the append-only file, were
-- a third of the script's calls).
--
-- The checks run in this order: a stale writer is refused first; then, in a
-- closed round, the identical entry already in the log still answers DUP
-- (the retry of a move accepted before the close) and anything else is
-- CLOSED, with nothing written, not even a newer writer's epoch.
local player, epoch, seq, entry = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4]
local ttl = ARGV[7]

-- Epochs are unsigned 64-bit integers, beyond a Lua number's exact range:
-- compare the decimal strings, by length and then byte by byte.
local cur = redis.call('HGET', KEYS[2], player)
if cur and (#epoch < #cur or (#epoch == #cur and epoch < cur)) then
  return redis.error_reply('STALE writer epoch ' .. epoch .. ' is older than the log\'s ' .. cur)
end
if redis.call('EXISTS', KEYS[6]) == 1 then
  local n = redis.call('LLEN', KEYS[1])
  if seq >= 1 and seq <= n and redis.call('LINDEX', KEYS[1], seq - 1) == entry then
    return 'DUP'
  end
  return redis.error_reply('CLOSED the round is closed')
end
if cur ~= epoch then
  -- A newer writer takes the log over, even if its entry is refused below.
  redis.call('HSET', KEYS[2], player, epoch)
  redis.call('PEXPIRE', KEYS[2], ttl)
end

local n = redis.call('LLEN', KEYS[1])
if seq <= n then
  if seq >= 1 and redis.call('LINDEX', KEYS[1], seq - 1) == entry then
    return 'DUP'
  end
  return redis.error_reply('SEQCONFLICT seq ' .. ARGV[3] .. ' is taken in a log of ' .. n)
end
if seq > n + 1 then
  return redis.error_reply('SEQGAP seq ' .. ARGV[3] .. ' is beyond the next, ' .. (n + 1))
end

redis.call('RPUSH', KEYS[1], entry)
redis.call('HSET', KEYS[3], player, ARGV[5])
-- The rank member changes only with the standing's rank fields (cards up,
-- points, the finish): most moves leave it, and then both keys as they are
-- (an HSET of the same value would still go to the append-only file).
local old = redis.call('HGET', KEYS[5], player)
if old ~= ARGV[6] then
  if old then
    redis.call('ZREM', KEYS[4], old)
  end
  redis.call('ZADD', KEYS[4], 0, ARGV[6])
  redis.call('HSET', KEYS[5], player, ARGV[6])
end
-- The log's expiry stands for the five keys': they all get the ttl at the
-- same moments, the round's keys also from the other players' logs.
local ttlMs = tonumber(ttl)
if redis.call('PTTL', KEYS[1]) < ttlMs - math.min(math.floor(ttlMs / 60), 60000) then
  for i = 1, 5 do
    redis.call('PEXPIRE', KEYS[i], ttl)
  end
end
return 'OK'
