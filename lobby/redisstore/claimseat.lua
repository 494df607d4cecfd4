-- Make a new writer epoch for a player's log (see Store.ClaimSeat).
--
-- KEYS[1] the round's writer epochs (hash player -> decimal epoch, as in
-- append.lua). ARGV: player, ttl in milliseconds.
--
-- Replies the new epoch, the old one plus one, as a decimal string without
-- leading zeros (1 for a player without one), or an error whose code is
-- EPOCHS when the old epoch is already 2^64-1.
--
-- HINCRBY cannot do this: it works on signed 64-bit integers and refuses a
-- field above 2^63-1, which Append may have written (epochs are uint64), and
-- a Lua number is exact only below 2^53. So the decimal string is incremented
-- digit by digit.
local cur = redis.call('HGET', KEYS[1], ARGV[1]) or '0'
local digits = {}
local carry = 1
for i = #cur, 1, -1 do
  local d = string.byte(cur, i) - 48 + carry
  if d == 10 then
    d, carry = 0, 1
  else
    carry = 0
  end
  digits[i] = string.char(48 + d)
end
local new = table.concat(digits)
if carry == 1 then
  new = '1' .. new
end
if #new > 20 or (#new == 20 and new > '18446744073709551615') then
  return redis.error_reply('EPOCHS no writer epoch is newer than ' .. cur)
end
redis.call('HSET', KEYS[1], ARGV[1], new)
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return new
