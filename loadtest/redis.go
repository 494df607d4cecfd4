package main

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"klondike/lobby"
	"klondike/match"
	"klondike/match/redisstore"
)

// openRedis opens the Redis store and sessions at url as klondiked --redis
// does (the same client timeouts), under a key prefix of the run's own so
// that a run never touches another's keys; the keys expire after an hour.
func openRedis(url string) (match.Store, lobby.Sessions, func(), error) {
	opts, err := redis.ParseURL(url)
	if err != nil {
		return nil, nil, nil, err
	}
	opts.DialTimeout, opts.ReadTimeout, opts.WriteTimeout, opts.MaxRetries = time.Second, time.Second, time.Second, 2
	c := redis.NewClient(opts)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		c.Close()
		return nil, nil, nil, fmt.Errorf("ping %s: %w", url, err)
	}
	prefix := fmt.Sprintf("klondike-loadtest:%d:", time.Now().UnixNano())
	store := redisstore.New(c, redisstore.Config{Prefix: prefix, TTL: time.Hour})
	return store, redisstore.NewSessions(c, prefix), func() { c.Close() }, nil
}
