-- The Players' reads and writes of one player's keys (players.go): each
-- runs whole, so that a player, its credentials and its passkeys change
-- together. Every key is in the player's slot.
--
-- KEYS[1] profile   hash: name, created, seq (the last number given to a
--                   credential or passkey, which orders them)
-- KEYS[2] creds     sorted set: credential digest -> its number
-- KEYS[3] passkeys  hash: passkey id -> "number|created|data"
-- ARGV[1] the operation, then its arguments; the replies:
--
--   create name created cred idle_ms      1; the error EXISTS when the player exists
--   resume cred idle_ms                   {name, created, creds, passkey ids}; NOTFOUND
--   rename name                           1; NOTFOUND
--   addcred cred idle_ms max              {revoked creds, creds, passkey ids}; NOTFOUND
--   revokeall                             the creds revoked
--   addpasskey id created data idle_ms max
--                                         {creds, passkey ids}; NOTFOUND, TAKEN, TOOMANY
--   updatepasskey id data idle_ms         {creds, passkey ids}; NOTFOUND
--   delete                                {creds, passkey ids} deleted
--
-- Every operation that restarts the player's idle clock (create, resume,
-- addcred, addpasskey, updatepasskey) gives its three keys idle_ms, and
-- replies with its credentials and passkey ids, whose own keys are in
-- other slots: the caller gives them idle_ms. No key here is made without
-- an expiry.
--
-- go-redis resends a script whose reply it lost: a create or an addpasskey
-- that finds its own work done replies as if it had just done it.
local op = ARGV[1]
local profile, creds, passkeys = KEYS[1], KEYS[2], KEYS[3]

local function notfound()
  return redis.error_reply('NOTFOUND no such player')
end

local function touch(idle)
  redis.call('PEXPIRE', profile, idle)
  redis.call('PEXPIRE', creds, idle)
  redis.call('PEXPIRE', passkeys, idle)
  return redis.call('ZRANGE', creds, 0, -1), redis.call('HKEYS', passkeys)
end

if op == 'create' then
  if redis.call('EXISTS', profile) == 1 then
    if redis.call('ZSCORE', creds, ARGV[4]) and redis.call('HGET', profile, 'created') == ARGV[3] then
      return 1
    end
    return redis.error_reply('EXISTS a player with this id exists')
  end
  redis.call('DEL', creds, passkeys)
  redis.call('HSET', profile, 'name', ARGV[2], 'created', ARGV[3], 'seq', 1)
  redis.call('ZADD', creds, 1, ARGV[4])
  touch(ARGV[5])
  return 1
end

if op == 'resume' then
  if not redis.call('ZSCORE', creds, ARGV[2]) then
    return notfound()
  end
  local p = redis.call('HMGET', profile, 'name', 'created')
  if not p[1] then
    return notfound()
  end
  local c, k = touch(ARGV[3])
  return {p[1], p[2], c, k}
end

if op == 'rename' then
  if redis.call('EXISTS', profile) == 0 then
    return notfound()
  end
  redis.call('HSET', profile, 'name', ARGV[2])
  return 1
end

if op == 'addcred' then
  if redis.call('EXISTS', profile) == 0 then
    return notfound()
  end
  local seq = redis.call('HINCRBY', profile, 'seq', 1)
  redis.call('ZADD', creds, seq, ARGV[2])
  local revoked = {}
  local over = redis.call('ZCARD', creds) - tonumber(ARGV[4])
  if over > 0 then
    local popped = redis.call('ZPOPMIN', creds, over)
    for i = 1, #popped, 2 do
      revoked[#revoked + 1] = popped[i]
    end
  end
  local c, k = touch(ARGV[3])
  return {revoked, c, k}
end

if op == 'revokeall' then
  local c = redis.call('ZRANGE', creds, 0, -1)
  redis.call('DEL', creds)
  return c
end

if op == 'addpasskey' then
  if redis.call('EXISTS', profile) == 0 then
    return notfound()
  end
  local tail = ARGV[3] .. '|' .. ARGV[4]
  local cur = redis.call('HGET', passkeys, ARGV[2])
  if cur then
    if string.match(cur, '^[^|]*|(.*)$') ~= tail then
      return redis.error_reply('TAKEN this passkey is registered already')
    end
  else
    if redis.call('HLEN', passkeys) >= tonumber(ARGV[6]) then
      return redis.error_reply('TOOMANY the player has the most passkeys')
    end
    local seq = redis.call('HINCRBY', profile, 'seq', 1)
    redis.call('HSET', passkeys, ARGV[2], seq .. '|' .. tail)
  end
  local c, k = touch(ARGV[5])
  return {c, k}
end

if op == 'updatepasskey' then
  if redis.call('EXISTS', profile) == 0 then
    return notfound()
  end
  local cur = redis.call('HGET', passkeys, ARGV[2])
  if not cur then
    return notfound()
  end
  redis.call('HSET', passkeys, ARGV[2], string.match(cur, '^[^|]*|[^|]*|') .. ARGV[3])
  local c, k = touch(ARGV[4])
  return {c, k}
end

if op == 'delete' then
  local c = redis.call('ZRANGE', creds, 0, -1)
  local k = redis.call('HKEYS', passkeys)
  redis.call('DEL', profile, creds, passkeys)
  return {c, k}
end

return redis.error_reply('ERR players.lua: no operation ' .. tostring(op))
