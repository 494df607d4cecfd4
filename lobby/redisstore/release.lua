-- Give a lease up if the holder has it (see Coord.ReleaseLease).
--
-- KEYS[1] the lease. ARGV: holder. Replies 1 if it was released, else 0.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
