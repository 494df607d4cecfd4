-- Spend one use of a token bucket, as the generic cell rate algorithm does
-- (see Allowances.Take): the key holds one time, when the bucket is full
-- again, and expires then, when it counts for nothing.
--
-- KEYS[1] the bucket (string: when it is full again, in microseconds)
-- ARGV: now, the time one use takes to come back (period / n), and the
-- burst (that time by n - 1), all in microseconds, integers
--
-- Reply: 1 (taken) or 0 (refused: nothing changed).
local now, every, burst = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local full = tonumber(redis.call('GET', KEYS[1]) or '') or now
if full < now then
  full = now
end
if full - now > burst then
  return 0
end
full = full + every
-- Formatted here: Redis would write a number above 10^17 in exponent form.
redis.call('SET', KEYS[1], string.format('%.0f', full), 'PX', string.format('%.0f', math.max(math.ceil((full - now) / 1000), 1)))
return 1
