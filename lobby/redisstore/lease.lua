-- Take a lease, or renew it for its holder (see Coord.Lease).
--
-- KEYS[1] the lease: a string, its holder. ARGV: holder, ttl in
-- milliseconds, and a holder the caller found not live ("" for none).
-- Replies 1 if the holder has the lease now (taken or renewed), else the
-- name of the holder that has it.
local cur = redis.call('GET', KEYS[1])
if cur == false or cur == ARGV[1] or cur == ARGV[3] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return cur
