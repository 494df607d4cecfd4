-- Forget a player under one rating key (see Ratings.Forget): their
-- rating, history and ladder entry at once, so that no read finds one
-- without the others.
--
-- KEYS: the key's ratings, ladder, lapses, the player's history
-- ARGV: the player's id
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('DEL', KEYS[4])
return 1
