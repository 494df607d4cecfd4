-- Close a round (see Store.CloseRound): the field "" of the round's
-- writers hash (KEYS[1], as in append.lua) is the closed marker, so that
-- Append reads it with the writer's epoch in one call. ARGV: ttl in ms.
redis.call('HSET', KEYS[1], '', '1')
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 'OK'
