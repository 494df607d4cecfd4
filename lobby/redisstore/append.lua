-- Append one entry to a player's move log and set the player's standing,
-- atomically (see Store.Append).
--
-- KEYS[1] the player's log (list of "seq|at_ms|move")
-- KEYS[2] the round's writers (hash player -> decimal epoch; its field ""
--         is the closed marker, "1" once CloseRound ran)
-- KEYS[3] the round's standings (hash player -> standing JSON)
-- KEYS[4] the round's rank (sorted set, every score 0, member = rank key)
-- KEYS[5] the round's rank members (hash player -> member in KEYS[4])
-- ARGV: player, epoch (decimal, no leading zeros), seq, entry, standing,
--       rank member, ttl in milliseconds, the rank member the caller last
--       wrote for the player ("" if it does not know), renewal ("1": give
--       the keys the ttl again, "0": not now, "": when the log's has
--       fallen behind, as below)
--
-- Replies: "OK" (appended), "DUP" (the identical entry is already at seq:
-- a retry, nothing changed), or an error whose code is STALE, CLOSED,
-- LOST, SEQCONFLICT or SEQGAP.
--
-- Every call here costs Redis about as much as the script's own run, so a
-- move that changes nothing but the log and the standing makes three: the
-- writer's epoch and the closed marker in one HMGET, the RPUSH, whose
-- reply is the log's length (the sequence check, undone by an RPOP in the
-- rare case it fails), and the standing's HSET. The rank set is left alone
-- when the caller says the member it wrote last is this one; the keys' TTL
-- is the caller's to renew, about once a minute a player (five PEXPIREs a
-- move, each also written to the append-only file, were a third of the
-- calls); a caller that keeps no such state passes "" for both, and the
-- script reads the rank members hash and the log's TTL instead.
--
-- The checks run in this order: a stale writer is refused first; then, in a
-- closed round, the identical entry already in the log still answers DUP
-- (the retry of a move accepted before the close) and anything else is
-- CLOSED, with nothing written, not even a newer writer's epoch; then a
-- claimed writer (epoch above 0) with no epoch here and a seq past 1 is
-- LOST: ClaimSeat wrote its epoch before its first append, so the round's
-- data is gone (an emptied Redis), and nothing is written.
local player, epoch, seq, entry = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4]
local ttl = ARGV[7]

local function retry(n)
  -- Whether the log of n entries holds this very entry at seq.
  return seq >= 1 and seq <= n and redis.call('LINDEX', KEYS[1], seq - 1) == entry
end

-- Epochs are unsigned 64-bit integers, beyond a Lua number's exact range:
-- compare the decimal strings, by length and then byte by byte.
local meta = redis.call('HMGET', KEYS[2], player, '')
local cur = meta[1]
if cur and (#epoch < #cur or (#epoch == #cur and epoch < cur)) then
  return redis.error_reply('STALE writer epoch ' .. epoch .. ' is older than the log\'s ' .. cur)
end
if meta[2] then
  if retry(redis.call('LLEN', KEYS[1])) then
    return 'DUP'
  end
  return redis.error_reply('CLOSED the round is closed')
end
if not cur and seq > 1 and epoch ~= '0' then
  return redis.error_reply('LOST the round\'s data is gone: the store has no writer epoch for ' .. player)
end
if cur ~= epoch then
  -- A newer writer takes the log over, even if its entry is refused below.
  redis.call('HSET', KEYS[2], player, epoch)
  redis.call('PEXPIRE', KEYS[2], ttl)
end

local n = redis.call('RPUSH', KEYS[1], entry)
if n ~= seq then
  redis.call('RPOP', KEYS[1])
  n = n - 1
  if retry(n) then
    return 'DUP'
  end
  if seq <= n then
    return redis.error_reply('SEQCONFLICT seq ' .. ARGV[3] .. ' is taken in a log of ' .. n)
  end
  return redis.error_reply('SEQGAP seq ' .. ARGV[3] .. ' is beyond the next, ' .. (n + 1))
end

redis.call('HSET', KEYS[3], player, ARGV[5])
-- The rank member changes only with the standing's rank fields (cards up,
-- points, the finish): most moves leave it, and then both keys as they are
-- (an HSET of the same value would still go to the append-only file). A
-- member the caller names that is not in the set (the caller's memory is
-- out of date) sends the script to the rank members hash.
local new, known = ARGV[6], ARGV[8]
if known ~= new then
  local old = known
  if old == '' or redis.call('ZREM', KEYS[4], old) == 0 then
    old = redis.call('HGET', KEYS[5], player)
    if old and old ~= new then
      redis.call('ZREM', KEYS[4], old)
    end
  end
  if old ~= new then
    redis.call('ZADD', KEYS[4], 0, new)
    redis.call('HSET', KEYS[5], player, new)
  end
end

-- The log's expiry stands for the five keys': they all get the ttl at the
-- same moments, the round's keys also from the other players' logs. A log
-- this append made (n is 1) gets it at once.
local renew = ARGV[9] == '1' or n == 1
if ARGV[9] == '' and not renew then
  local ttlMs = tonumber(ttl)
  renew = redis.call('PTTL', KEYS[1]) < ttlMs - math.min(math.floor(ttlMs / 60), 60000)
end
if renew then
  for i = 1, 5 do
    redis.call('PEXPIRE', KEYS[i], ttl)
  end
end
return 'OK'
