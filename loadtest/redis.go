package main

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"klondike/loadtest/embedded"
)

// dialRedis returns a client of the Redis at url with klondiked's timeouts
// (embedded.Dial), once it has answered a PING.
func dialRedis(url string) (*redis.Client, error) {
	c, err := embedded.Dial(url, 0)
	if err != nil {
		return nil, err
	}
	if err := embedded.Ping(c, url); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

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
		return r.redis.Client, func() {}, nil
	}
	if r.cfg.RedisInfo == "" {
		return nil, func() {}, nil
	}
	c, err := embedded.Dial(r.cfg.RedisInfo, infoTimeout)
	if err != nil {
		return nil, nil, fmt.Errorf("--redis-info: %w", err)
	}
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
