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

	"klondike/loadtest/embedded"
)

// startEmbedded runs the real server in this process, as cmd/klondiked
// wires it, on a loopback port of its own: the memory backends, or with
// --redis the Redis store, sessions and Coord on one client (as klondiked
// --redis). The per-IP caps and limits are off, since every bot comes from
// 127.0.0.1, and the message rate is --msg-rate. --no-coord keeps the
// Coord in this process's memory (the lobby's state on one node, as before
// the Coord existed). With --redis the Redis target is returned too (nil
// otherwise), for its figures.
func startEmbedded(cfg *config) (wsURL string, rt *embedded.Redis, stop func(), err error) {
	closeRedis := func() {}
	if cfg.Redis != "" {
		if err := checkLoopbackURL(cfg.Redis, "redis", "rediss"); err != nil {
			return "", nil, nil, fmt.Errorf("--redis: %w", err)
		}
		if rt, err = embedded.OpenRedis(cfg.Redis); err != nil {
			return "", nil, nil, fmt.Errorf("--redis: %w", err)
		}
		closeRedis = rt.Close
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(cfg.ServerLog)); err != nil {
		closeRedis()
		return "", nil, nil, fmt.Errorf("--server-log: %w", err)
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	srv, err := embedded.StartServer(embedded.ServerConfig{Redis: rt, NoCoord: cfg.NoCoord, MsgRate: cfg.MsgRate, Logger: logger})
	if err != nil {
		return "", nil, nil, err
	}
	return srv.URL, rt, srv.Stop, nil
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
