-- Compare-and-set of a match's record (see Coord.SaveMatch).
--
-- KEYS[1] the match's record: a hash, v -> version, rec -> record.
-- ARGV: the version the caller read (0: no record), the new record, ttl in
-- milliseconds.
--
-- Replies the new version, or an error whose code is VERSION when the record
-- is at another version. When the record is already the very one given, at
-- the version just after the one read, this is a resend of a save that went
-- in (go-redis retrying after a lost reply): it replies that version again
-- and changes nothing. Versions stay far below 2^53, where Lua numbers are
-- exact.
local v = tonumber(redis.call('HGET', KEYS[1], 'v') or '0')
local prev = tonumber(ARGV[1])
if v == prev then
  redis.call('HSET', KEYS[1], 'v', v + 1, 'rec', ARGV[2])
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  return v + 1
end
if v == prev + 1 and redis.call('HGET', KEYS[1], 'rec') == ARGV[2] then
  return v
end
return redis.error_reply('VERSION the match is at version ' .. v .. ', not ' .. ARGV[1])
