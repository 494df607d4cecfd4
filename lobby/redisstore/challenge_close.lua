-- Replace a round's record with the one its caller made from the record it
-- read, unless the record changed meanwhile (see Async.CloseAsync). The
-- record keeps its expiry.
--
-- KEYS[1] the round's record
-- ARGV: the record as read, the new record
--
-- Reply: 1 (replaced), 0 (the record changed: read it again), or the error
-- NOTFOUND.
local cur = redis.call('GET', KEYS[1])
if not cur then
  return redis.error_reply('NOTFOUND no such asynchronous round')
end
if cur ~= ARGV[1] then
  return 0
end
redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
return 1
