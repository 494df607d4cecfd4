package main

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"klondike/lobby/redisstore"
)

// redisTarget is the Redis side of an embedded run: the store, the
// sessions and the Coord (matches' records, the lobby's indexes, the bus
// between nodes) on one client, opened as klondiked --redis opens them.
type redisTarget struct {
	backends *redisstore.Backends
	client   *redis.Client // backends.Client, for its server's INFO
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

// openRedis opens the Redis store, sessions and Coord at url on one client
// through redisstore.Open, as klondiked --redis does (the same client
// timeouts), so that the measured path is the production one; under a key
// prefix of the run's own so that a run never touches another's keys. The
// round logs expire after an hour (the Coord's keys take the TTLs the
// lobby gives them).
func openRedis(url string) (*redisTarget, error) {
	prefix := fmt.Sprintf("klondike-loadtest:%d:", time.Now().UnixNano())
	b, err := redisstore.Open(redisstore.Options{URL: url, Config: redisstore.Config{Prefix: prefix, TTL: time.Hour}})
	if err != nil {
		return nil, err
	}
	c := b.Client.(*redis.Client) // Open without Cluster makes a single-server client
	if err := ping(c, url); err != nil {
		b.Close()
		return nil, err
	}
	sent := &commandCounter{}
	c.AddHook(sent)
	return &redisTarget{backends: b, client: c, sent: sent}, nil
}

// dialRedis returns a client of the Redis at url with klondiked's timeouts
// (redisstore.Dial), once it has answered a PING.
func dialRedis(url string) (*redis.Client, error) {
	uc, err := redisstore.Dial(redisstore.Options{URL: url})
	if err != nil {
		return nil, err
	}
	c := uc.(*redis.Client) // Dial without Cluster makes a single-server client
	if err := ping(c, url); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// ping checks that the Redis at url answers c within 5 s.
func ping(c *redis.Client, url string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("ping %s: %w", url, err)
	}
	return nil
}

// close closes the store, then the client.
func (t *redisTarget) close() { _ = t.backends.Close() }

// commands is how many commands the store, the sessions and the Coord
// have sent so far (the client's connection set-up included).
func (t *redisTarget) commands() int64 { return t.sent.n.Load() }

// redisInfo is what a Redis server says of itself in INFO: the CPU time it
// used, and how many times it read from its clients.
type redisInfo struct {
	CPUSeconds float64
	Reads      int64
}

// readRedisInfo reads the cpu and stats sections of c's server.
func readRedisInfo(ctx context.Context, c *redis.Client) (redisInfo, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	text, err := c.Info(ctx, "cpu", "stats").Result()
	if err != nil {
		return redisInfo{}, err
	}
	return parseRedisInfo(text)
}

// parseRedisInfo reads used_cpu_sys, used_cpu_user and
// total_reads_processed from INFO's text.
func parseRedisInfo(text string) (redisInfo, error) {
	var ri redisInfo
	var seen int
	for line := range strings.Lines(text) {
		name, value, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok {
			continue
		}
		switch name {
		case "used_cpu_sys", "used_cpu_user":
			v, err := strconv.ParseFloat(value, 64)
			if err != nil {
				return ri, fmt.Errorf("INFO %s: %w", name, err)
			}
			ri.CPUSeconds += v
			seen++
		case "total_reads_processed":
			v, err := strconv.ParseInt(value, 10, 64)
			if err != nil {
				return ri, fmt.Errorf("INFO %s: %w", name, err)
			}
			ri.Reads = v
			seen++
		}
	}
	if seen != 3 {
		return ri, fmt.Errorf("INFO lacks used_cpu_sys, used_cpu_user or total_reads_processed (Redis 6 or later has them)")
	}
	return ri, nil
}

// redisInfoClient returns the client whose server's INFO the run reads:
// the embedded server's, or one to --redis-info (closed by the returned
// function); nil when there is neither. The one to --redis-info waits for
// INFO up to infoTimeout, and dials only loopback addresses.
func (r *runner) redisInfoClient() (*redis.Client, func(), error) {
	if r.redis != nil {
		return r.redis.client, func() {}, nil
	}
	if r.cfg.RedisInfo == "" {
		return nil, func() {}, nil
	}
	uc, err := redisstore.Dial(redisstore.Options{URL: r.cfg.RedisInfo, IOTimeout: infoTimeout})
	if err != nil {
		return nil, nil, fmt.Errorf("--redis-info: %w", err)
	}
	c := uc.(*redis.Client) // Dial without Cluster makes a single-server client
	c.AddHook(loopbackOnly{})
	return c, func() { c.Close() }, nil
}

// infoTimeout bounds reading Redis's INFO: longer than a command of the
// store's, since a Redis under the run's load may be slow to answer it.
const infoTimeout = 5 * time.Second

// loopbackOnly is a go-redis hook that lets the client dial only loopback
// addresses, whatever its URL said, as loopbackDial does for the run's
// HTTP and WebSocket clients.
type loopbackOnly struct{}

func (loopbackOnly) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		if err := checkLoopbackHost(host); err != nil {
			return nil, err
		}
		return next(ctx, network, addr)
	}
}

func (loopbackOnly) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }

func (loopbackOnly) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}
