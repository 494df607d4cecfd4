package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"klondike/match/redisstore"
	"klondike/match/redisstore/redistest"
)

// startRun runs the server with args in the background and returns its
// address once it listens, and the channel run's result comes on.
func startRun(t *testing.T, ctx context.Context, logs *bytes.Buffer, args ...string) (string, chan error) {
	t.Helper()
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, args, env(nil), &syncWriter{w: logs}, ready)
	}()
	select {
	case addr := <-ready:
		return addr, done
	case err := <-done:
		t.Fatalf("run ended: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("server did not start")
	}
	return "", nil
}

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestOptionsFlagsWinOverEnvironment(t *testing.T) {
	var out bytes.Buffer
	o, err := parseOptions([]string{"--addr", "127.0.0.1:9"}, env(map[string]string{
		"KLONDIKE_ADDR": "127.0.0.1:8", "KLONDIKE_LOG_FORMAT": "json", "KLONDIKE_SHUTDOWN_GRACE": "3s",
		"KLONDIKE_ALLOWED_ORIGINS": "https://a.example, https://b.example", "KLONDIKE_MAX_CONNS_PER_IP": "7",
	}), &out)
	if err != nil {
		t.Fatal(err)
	}
	if o.Addr != "127.0.0.1:9" || o.LogFormat != "json" || o.ShutdownGrace != 3*time.Second ||
		len(o.Limits.AllowedOrigins) != 2 || o.Limits.AllowedOrigins[1] != "https://b.example" || o.Limits.MaxConnsPerIP != 7 {
		t.Errorf("options = %+v", o)
	}
	o, _ = parseOptions(nil, env(nil), &out)
	if o.Addr != ":8080" || o.RedisURL != "" || o.LogFormat != "text" || o.RedisLinger != redisstore.DefaultLinger {
		t.Errorf("defaults = %+v", o)
	}
	o, err = parseOptions([]string{"--redis-linger", "0"}, env(map[string]string{"KLONDIKE_REDIS_LINGER": "3ms"}), &out)
	if err != nil || o.RedisLinger != 0 {
		t.Errorf("--redis-linger 0 over KLONDIKE_REDIS_LINGER=3ms: %v, %v", o.RedisLinger, err)
	}
	o, err = parseOptions(nil, env(map[string]string{"KLONDIKE_REDIS_LINGER": "3ms"}), &out)
	if err != nil || o.RedisLinger != 3*time.Millisecond {
		t.Errorf("KLONDIKE_REDIS_LINGER=3ms: %v, %v", o.RedisLinger, err)
	}
	for _, bad := range []string{"-1ms", "2s"} {
		if _, err := parseOptions([]string{"--redis-linger", bad}, env(nil), &out); err == nil || !strings.Contains(err.Error(), "redis-linger") {
			t.Errorf("--redis-linger %s: %v, want an error naming the flag", bad, err)
		}
	}
}

func TestHelpAndBadUsage(t *testing.T) {
	var out bytes.Buffer
	if _, err := parseOptions([]string{"--help"}, env(nil), &out); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("--help = %v", err)
	}
	for _, name := range []string{"--addr", "--redis", "KLONDIKE_REDIS_URL", "--log-format", "--shutdown-grace", "--allowed-origins"} {
		if !strings.Contains(out.String(), strings.TrimLeft(name, "-")) {
			t.Errorf("--help does not mention %s", name)
		}
	}
	for _, args := range [][]string{{"--nope"}, {"extra"}, {"--log-format", "xml"}, {"--log-level", "loud"}} {
		err := run(context.Background(), append(args, "--addr", "127.0.0.1:0"), env(nil), &out, nil)
		if err == nil {
			t.Errorf("run(%v) succeeded", args)
		}
	}
}

// TestRunServesAndDrains starts the real binary's wiring on a loopback port,
// connects a client and stops it as SIGTERM would: the client is told to
// reconnect (1012) and run returns.
func TestRunServesAndDrains(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var logs bytes.Buffer
	addr, done := startRun(t, ctx, &logs, "--addr", "127.0.0.1:0", "--shutdown-grace", "5s")
	resp, err := http.Get("http://" + addr + "/readyz")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("/readyz = %v, %v", resp, err)
	}
	resp.Body.Close()
	c, _, err := websocket.DefaultDialer.Dial("ws://"+addr+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.WriteJSON(map[string]string{"type": "hello", "name": "alice"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.ReadMessage(); err != nil {
		t.Fatal(err)
	}
	cancel()
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		if _, _, err = c.ReadMessage(); err != nil {
			break
		}
	}
	if !websocket.IsCloseError(err, websocket.CloseServiceRestart) {
		t.Errorf("on shutdown the client got %v, want close 1012", err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("run did not return after shutdown")
	}
}

// TestRunWithRedis runs the binary's wiring on a test redis-server: a move
// lands in Redis under the prefix, and /readyz follows Redis.
func TestRunWithRedis(t *testing.T) {
	rs := redistest.Start(t)
	prefix := redistest.Prefix(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var logs bytes.Buffer
	addr, done := startRun(t, ctx, &logs, "--addr", "127.0.0.1:0", "--redis", rs.URL(), "--redis-prefix", prefix)
	c, _, err := websocket.DefaultDialer.Dial("ws://"+addr+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	send := func(v map[string]any) {
		if err := c.WriteJSON(v); err != nil {
			t.Fatal(err)
		}
	}
	expect := func(typ string) map[string]any {
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		for {
			var m map[string]any
			if err := c.ReadJSON(&m); err != nil {
				t.Fatalf("waiting for %s: %v", typ, err)
			}
			if m["type"] == typ {
				return m
			}
		}
	}
	send(map[string]any{"type": "hello", "name": "alice"})
	expect("welcome")
	send(map[string]any{"type": "create_match", "settings": map[string]any{"seed": "1", "countdown_s": 0, "max_players": 1}})
	info := expect("match")["match"].(map[string]any)
	send(map[string]any{"type": "start_match", "match_id": info["id"]})
	rs1 := expect("round_started")
	send(map[string]any{"type": "move", "round_id": rs1["round_id"], "seq": 1, "move": "T6-F"})
	expect("move_ok")
	keys, err := rs.Client(t).Keys(context.Background(), prefix+"*").Result()
	if err != nil || len(keys) == 0 {
		t.Fatalf("keys under %s: %v, %v", prefix, keys, err)
	}
	readyz := func() int {
		resp, err := http.Get("http://" + addr + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := readyz(); code != 200 {
		t.Fatalf("/readyz with Redis up = %d", code)
	}
	rs.Kill()
	if code := readyz(); code != http.StatusServiceUnavailable {
		t.Errorf("/readyz with Redis down = %d, want 503", code)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		t.Fatal("run did not return")
	}
}

func TestBadRedisFlags(t *testing.T) {
	var out bytes.Buffer
	for _, args := range [][]string{{"--redis", "http://nope"}, {"--redis", "redis://127.0.0.1:1/0", "--redis-prefix", "a{b}"}} {
		err := run(context.Background(), append(args, "--addr", "127.0.0.1:0"), env(nil), &out, nil)
		if err == nil {
			t.Errorf("run(%v) started", args)
		}
	}
}

// syncWriter serializes writes from the server's goroutines.
type syncWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// TestDebugAddr checks that --debug-addr serves the profiler on a listener
// of its own, and that the game's listener does not.
func TestDebugAddr(t *testing.T) {
	probe, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	debugAddr := probe.Addr().String()
	probe.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var logs bytes.Buffer
	addr, done := startRun(t, ctx, &logs, "--addr", "127.0.0.1:0", "--debug-addr", debugAddr, "--winnable-workers", "0")
	get := func(url string) int {
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := get("http://" + debugAddr + "/debug/pprof/cmdline"); code != http.StatusOK {
		t.Errorf("profiler: status %d, want 200", code)
	}
	if code := get("http://" + addr + "/debug/pprof/cmdline"); code == http.StatusOK {
		t.Errorf("the game's listener serves the profiler")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
