package main

import (
	"context"
	"fmt"
	"net"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"klondike/lobby"
	"klondike/match"
	"klondike/match/redisstore"
)

// redisTarget is the Redis store of an embedded run.
type redisTarget struct {
	store    *redisstore.Store
	sessions lobby.Sessions
	client   *redis.Client
	sent     *commandCounter
}

// commandCounter is a go-redis hook that counts the commands the client
// sends, each command of a pipeline apart: the commands a move costs.
// (Redis's own total_commands_processed also counts the calls a script
// makes inside Redis.)
type commandCounter struct{ n atomic.Int64 }

func (h *commandCounter) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) { return next(ctx, network, addr) }
}

func (h *commandCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.n.Add(1)
		return next(ctx, cmd)
	}
}

func (h *commandCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		h.n.Add(int64(len(cmds)))
		return next(ctx, cmds)
	}
}

// openRedis opens the Redis store and sessions at url as klondiked --redis
// does (the same client timeouts), under a key prefix of the run's own so
// that a run never touches another's keys; the keys expire after an hour.
// With noBatch the store sends each append on its own (no group commit).
func openRedis(url string, noBatch bool) (*redisTarget, error) {
	opts, err := redis.ParseURL(url)
	if err != nil {
		return nil, err
	}
	opts.DialTimeout, opts.ReadTimeout, opts.WriteTimeout, opts.MaxRetries = time.Second, time.Second, time.Second, 2
	c := redis.NewClient(opts)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		c.Close()
		return nil, fmt.Errorf("ping %s: %w", url, err)
	}
	sent := &commandCounter{}
	c.AddHook(sent)
	prefix := fmt.Sprintf("klondike-loadtest:%d:", time.Now().UnixNano())
	store := redisstore.New(c, redisstore.Config{Prefix: prefix, TTL: time.Hour, NoBatch: noBatch})
	return &redisTarget{store: store, sessions: redisstore.NewSessions(c, prefix), client: c, sent: sent}, nil
}

// Store is the store for the server.
func (t *redisTarget) Store() match.Store { return t.store }

// close closes the store, then the client.
func (t *redisTarget) close() {
	t.store.Close()
	t.client.Close()
}

// commands is how many commands the store and the sessions have sent so
// far (the client's connection set-up included).
func (t *redisTarget) commands() int64 { return t.sent.n.Load() }
