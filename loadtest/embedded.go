package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	"klondike/api"
	"klondike/lobby"
	"klondike/lobby/memstore"
	"klondike/match"
)

// asyncBackend keeps the asynchronous rounds and the players' records.
type asyncBackend interface {
	match.AsyncStore
	match.RecordStore
}

// startEmbedded runs the real server in this process, as cmd/klondiked
// wires it (api.NewServer), on a loopback port of its own: the memory
// backends, or with --redis the Redis store, sessions and Coord on one
// client (as klondiked --redis). The per-IP caps and limits are off, since
// every bot comes from 127.0.0.1, and the message rate is --msg-rate.
// --no-coord keeps the Coord in this process's memory (the lobby's state
// on one node, as before the Coord existed). With --redis the Redis target
// is returned too (nil otherwise), for its figures.
func startEmbedded(cfg *config) (wsURL string, rt *redisTarget, stop func(), err error) {
	mem := memstore.NewBackends()
	var (
		store    match.Store    = mem.Store
		sessions lobby.Sessions = mem.Sessions
		coord    lobby.Coord    = mem.Coord
		async    asyncBackend   = mem.Async
	)
	closeStore := func() {}
	if cfg.Redis != "" {
		if err := checkLoopbackURL(cfg.Redis, "redis", "rediss"); err != nil {
			return "", nil, nil, fmt.Errorf("--redis: %w", err)
		}
		if rt, err = openRedis(cfg.Redis); err != nil {
			return "", nil, nil, fmt.Errorf("--redis: %w", err)
		}
		store, sessions, async, closeStore = rt.backends.Store, rt.backends.Sessions, rt.backends.Async, rt.close
		if !cfg.NoCoord {
			coord = rt.backends.Coord
		}
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(cfg.ServerLog)); err != nil {
		closeStore()
		return "", nil, nil, fmt.Errorf("--server-log: %w", err)
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	burst := 100
	if cfg.MsgRate > 0 {
		burst = max(burst, int(2*cfg.MsgRate))
	}
	srv := api.NewServer(api.Config{
		Store:    store,
		Sessions: sessions,
		Coord:    coord,
		Async:    async,
		Records:  async,
		Limits:   api.Limits{MaxConnsPerIP: -1, MsgRate: cfg.MsgRate, MsgBurst: burst},
		// Every bot is one address: no per-address or total lobby caps.
		NewSessionsPerMinute: -1, MaxOpenMatchesPerIP: -1, MaxOpenMatches: -1,
		Logger:  logger,
		Version: "loadtest",
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		srv.Close()
		closeStore()
		return "", nil, nil, err
	}
	// Every bot comes from one address: no per-address cap.
	hs, listen := api.NewHTTPServer(srv, api.HTTPLimits{MaxConnsPerIP: -1}, nil)
	go hs.Serve(listen(ln))
	stop = func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		_ = hs.Shutdown(ctx)
		closeStore()
	}
	return "ws://" + ln.Addr().String() + "/ws", rt, stop, nil
}

// checkLoopbackURL refuses a URL whose host is not a loopback address (a
// name must resolve to loopback addresses only).
func checkLoopbackURL(raw string, schemes ...string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return err
	}
	ok := false
	for _, s := range schemes {
		ok = ok || strings.EqualFold(u.Scheme, s)
	}
	if !ok {
		return fmt.Errorf("%q: want a %s URL", raw, strings.Join(schemes, " or "))
	}
	if u.Hostname() == "" {
		return fmt.Errorf("%q has no host", raw)
	}
	return checkLoopbackHost(u.Hostname())
}

// checkLoopbackHost accepts a loopback IP, or a name whose every address
// is a loopback one.
func checkLoopbackHost(host string) error {
	if ip := net.ParseIP(host); ip != nil {
		if !ip.IsLoopback() {
			return fmt.Errorf("%s is not a loopback address: the load test only talks to this machine", host)
		}
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupIPAddr(ctx, host)
	if err != nil {
		return err
	}
	if len(addrs) == 0 {
		return fmt.Errorf("%s has no address", host)
	}
	for _, a := range addrs {
		if !a.IP.IsLoopback() {
			return fmt.Errorf("%s resolves to %s, not a loopback address: the load test only talks to this machine", host, a.IP)
		}
	}
	return nil
}

// loopbackDial dials only loopback addresses, whatever a URL said.
func loopbackDial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if err := checkLoopbackHost(host); err != nil {
		return nil, err
	}
	var d net.Dialer
	return d.DialContext(ctx, network, addr)
}
