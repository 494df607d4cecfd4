package embedded

import (
	"context"
	"fmt"
	"net"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"klondike/lobby/backends"
	"klondike/lobby/redisstore"
)

// Redis is the Redis side of an embedded server: the store, the sessions
// and the Coord (matches' records, the lobby's indexes, the bus between
// nodes) on one client, opened as klondiked --redis opens them.
type Redis struct {
	// Client is the backends' client, for its server's INFO.
	Client *redis.Client

	b    *backends.Backends
	sent *commandCounter
}

// OpenRedis opens the backends at url through backends.Open, as
// klondiked --redis does (the same client timeouts), so that the measured
// path is the production one; under a key prefix of the run's own so that
// a run never touches another's keys. The round logs expire after an hour
// (the Coord's keys take the TTLs the lobby gives them). It fails when
// Redis does not answer a PING.
func OpenRedis(url string) (*Redis, error) {
	prefix := fmt.Sprintf("klondike-loadtest:%d:", time.Now().UnixNano())
	b, err := backends.Open(context.Background(), url, backends.Options{Prefix: prefix, TTL: time.Hour})
	if err != nil {
		return nil, err
	}
	c := b.Redis.(*redis.Client) // a URL without Cluster makes a single-server client
	if err := Ping(c, url); err != nil {
		b.Close()
		return nil, err
	}
	sent := &commandCounter{}
	c.AddHook(sent)
	return &Redis{Client: c, b: b, sent: sent}, nil
}

// backends returns r's backends; nil when r is.
func (r *Redis) backends() *backends.Backends {
	if r == nil {
		return nil
	}
	return r.b
}

// Commands is how many commands the store, the sessions and the Coord
// have sent so far (the client's connection set-up included).
func (r *Redis) Commands() int64 { return r.sent.n.Load() }

// Close closes the backends, then the client.
func (r *Redis) Close() { _ = r.b.Close() }

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

// Dial returns a client of the Redis at url with klondiked's timeouts
// (redisstore.Dial), its reads and writes bounded by ioTimeout instead
// when positive. It sends nothing.
func Dial(url string, ioTimeout time.Duration) (*redis.Client, error) {
	uc, err := redisstore.Dial(redisstore.Options{URL: url, IOTimeout: ioTimeout})
	if err != nil {
		return nil, err
	}
	return uc.(*redis.Client), nil // Dial without Cluster makes a single-server client
}

// Ping checks that the Redis at url answers c within 5 s.
func Ping(c *redis.Client, url string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("ping %s: %w", url, err)
	}
	return nil
}
