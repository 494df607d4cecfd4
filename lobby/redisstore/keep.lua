-- Make keys live until at least a time (see Store.Keep): a key whose
-- expiry comes sooner gets the later one; a key without an expiry, or
-- missing, is left alone.
--
-- KEYS: the keys. ARGV[1]: the time, in Unix milliseconds.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local untilMs = tonumber(ARGV[1])
for _, k in ipairs(KEYS) do
  local ttl = redis.call('PTTL', k)
  if ttl >= 0 and now + ttl < untilMs then
    redis.call('PEXPIREAT', k, ARGV[1])
  end
end
return 'OK'
