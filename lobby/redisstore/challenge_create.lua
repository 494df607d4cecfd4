-- Make an asynchronous round unless one of its id exists (see
-- Async.CreateAsync).
--
-- KEYS[1] the round's record (string, JSON)
-- ARGV: the record, its ttl in milliseconds
--
-- Reply: {1, the record} when this call made it, else {0, the record that
-- stands}.
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return {1, ARGV[1]}
end
return {0, redis.call('GET', KEYS[1])}
