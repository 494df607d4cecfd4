package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"klondike/api"
	"klondike/api/apitest"
	"klondike/api/protocol"
	"klondike/lobby/backends"
	"klondike/lobby/redisstore/redistest"
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
	if o.Addr != ":8080" || o.RedisURL != "" || o.LogFormat != "text" || o.RedisLinger != backends.DefaultLinger {
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

func TestOptionsHTTPLimitsAndSendBudget(t *testing.T) {
	var out bytes.Buffer
	o, err := parseOptions(nil, env(nil), &out)
	if err != nil {
		t.Fatal(err)
	}
	if want := (api.HTTPLimits{}).WithDefaults(); o.HTTP != want || o.Limits.SendBudget != api.DefaultSendBudget {
		t.Errorf("defaults: HTTP %+v, send budget %d; want %+v, %d", o.HTTP, o.Limits.SendBudget, want, api.DefaultSendBudget)
	}
	vars := map[string]string{
		"KLONDIKE_HTTP_READ_HEADER_TIMEOUT": "1s", "KLONDIKE_HTTP_READ_TIMEOUT": "2s", "KLONDIKE_HTTP_WRITE_TIMEOUT": "3s",
		"KLONDIKE_HTTP_IDLE_TIMEOUT": "4s", "KLONDIKE_HTTP_MAX_HEADER_BYTES": "8192", "KLONDIKE_MAX_HTTP_CONNS_PER_IP": "100",
		"KLONDIKE_SEND_BUDGET": "65536",
	}
	o, err = parseOptions(nil, env(vars), &out)
	want := api.HTTPLimits{ReadHeaderTimeout: time.Second, ReadTimeout: 2 * time.Second, WriteTimeout: 3 * time.Second,
		IdleTimeout: 4 * time.Second, MaxHeaderBytes: 8192, MaxConnsPerIP: 100}
	if err != nil || o.HTTP != want || o.Limits.SendBudget != 65536 {
		t.Errorf("from the environment: HTTP %+v, send budget %d, %v; want %+v, 65536", o.HTTP, o.Limits.SendBudget, err, want)
	}
	o, err = parseOptions([]string{"--http-read-header-timeout", "5ms", "--http-read-timeout", "6ms", "--http-write-timeout", "7ms",
		"--http-idle-timeout", "8ms", "--http-max-header-bytes", "9000", "--max-http-conns-per-ip", "-1", "--send-budget", "70000"}, env(vars), &out)
	want = api.HTTPLimits{ReadHeaderTimeout: 5 * time.Millisecond, ReadTimeout: 6 * time.Millisecond, WriteTimeout: 7 * time.Millisecond,
		IdleTimeout: 8 * time.Millisecond, MaxHeaderBytes: 9000, MaxConnsPerIP: -1}
	if err != nil || o.HTTP != want || o.Limits.SendBudget != 70000 {
		t.Errorf("flags over the environment: HTTP %+v, send budget %d, %v; want %+v, 70000", o.HTTP, o.Limits.SendBudget, err, want)
	}
	if o, err = parseOptions([]string{"--max-conns-per-ip", "-1", "--max-http-conns-per-ip", "5"}, env(nil), &out); err != nil || o.HTTP.MaxConnsPerIP != 5 {
		t.Errorf("no WebSocket cap, an HTTP cap of 5: %d, %v", o.HTTP.MaxConnsPerIP, err)
	}
	for _, c := range []struct {
		args []string
		env  map[string]string
		name string // what the error must name
	}{
		{args: []string{"--http-read-header-timeout", "-1s"}, name: "http-read-header-timeout"},
		{args: []string{"--http-read-timeout", "-1s"}, name: "http-read-timeout"},
		{args: []string{"--http-write-timeout", "-1ms"}, name: "http-write-timeout"},
		{args: []string{"--http-idle-timeout", "-1m"}, name: "http-idle-timeout"},
		{args: []string{"--http-max-header-bytes", "-1"}, name: "http-max-header-bytes"},
		{args: []string{"--http-max-header-bytes", "2000000"}, name: "http-max-header-bytes"},
		{args: []string{"--send-budget", "-1"}, name: "send-budget"},
		{args: []string{"--max-http-conns-per-ip", "64"}, name: "max-http-conns-per-ip"},
		{args: []string{"--max-conns-per-ip", "20", "--max-http-conns-per-ip", "10"}, name: "max-http-conns-per-ip"},
		{env: map[string]string{"KLONDIKE_HTTP_READ_TIMEOUT": "soon"}, name: "KLONDIKE_HTTP_READ_TIMEOUT"},
		{env: map[string]string{"KLONDIKE_SEND_BUDGET": "1MiB"}, name: "KLONDIKE_SEND_BUDGET"},
		{env: map[string]string{"KLONDIKE_MAX_HTTP_CONNS_PER_IP": "lots"}, name: "KLONDIKE_MAX_HTTP_CONNS_PER_IP"},
		{env: map[string]string{"KLONDIKE_HTTP_IDLE_TIMEOUT": "-1s"}, name: "http-idle-timeout"},
	} {
		if _, err := parseOptions(c.args, env(c.env), &out); err == nil || !strings.Contains(err.Error(), c.name) {
			t.Errorf("parseOptions(%q, %v) = %v, want an error naming %s", c.args, c.env, err, c.name)
		}
	}
}

func TestHelpAndBadUsage(t *testing.T) {
	var out bytes.Buffer
	if _, err := parseOptions([]string{"--help"}, env(nil), &out); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("--help = %v", err)
	}
	for _, name := range []string{"--addr", "--redis", "KLONDIKE_REDIS_URL", "--log-format", "--shutdown-grace", "--allowed-origins",
		"--http-read-header-timeout", "KLONDIKE_HTTP_READ_HEADER_TIMEOUT", "--http-read-timeout", "KLONDIKE_HTTP_READ_TIMEOUT",
		"--http-write-timeout", "KLONDIKE_HTTP_WRITE_TIMEOUT", "--http-idle-timeout", "KLONDIKE_HTTP_IDLE_TIMEOUT",
		"--http-max-header-bytes", "KLONDIKE_HTTP_MAX_HEADER_BYTES", "--max-http-conns-per-ip", "KLONDIKE_MAX_HTTP_CONNS_PER_IP",
		"--send-budget", "KLONDIKE_SEND_BUDGET"} {
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
	c := apitest.Dial(t, "http://"+addr)
	c.Hello("alice")
	cancel()
	if err := c.WaitClosed(); !websocket.IsCloseError(err, websocket.CloseServiceRestart) {
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

// TestRunAppliesHTTPLimits checks that the server run serves with the HTTP
// limits of its flags: a connection over --max-http-conns-per-ip is
// answered 429, and an idle keep-alive is closed after --http-idle-timeout,
// which gives its place back.
func TestRunAppliesHTTPLimits(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var logs bytes.Buffer
	addr, done := startRun(t, ctx, &logs, "--addr", "127.0.0.1:0", "--winnable-workers", "0", "--shutdown-grace", "5s",
		"--max-conns-per-ip", "1", "--max-http-conns-per-ip", "2", "--http-idle-timeout", "200ms")
	dial := func() (net.Conn, *bufio.Reader) {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		return c, bufio.NewReader(c)
	}
	get := func(c net.Conn, br *bufio.Reader) int {
		if _, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	a, abr := dial()
	defer a.Close()
	if code := get(a, abr); code != http.StatusOK {
		t.Fatalf("first connection: %d", code)
	}
	b, _ := dial()
	over, obr := dial()
	defer over.Close()
	if code := get(over, obr); code != http.StatusTooManyRequests {
		t.Errorf("third connection from the address, cap 2: %d, want 429", code)
	}
	if _, err := abr.ReadByte(); err != io.EOF {
		t.Errorf("idle keep-alive: read %v, want EOF (closed by the server)", err)
	}
	c, cbr := dial()
	defer c.Close()
	if code := get(c, cbr); code != http.StatusOK {
		t.Errorf("after the idle connection closed: %d, want 200", code)
	}
	b.Close() // a connection that never sent a request would hold Shutdown back
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
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
	c := apitest.Dial(t, "http://"+addr)
	c.Hello("alice")
	info := apitest.Request[protocol.Match](c, protocol.CreateMatch{Type: protocol.TypeCreateMatch,
		Settings: protocol.PartialSettings{Seed: new("1"), CountdownS: new(0), MaxPlayers: new(1)}}).Match
	c.Send(protocol.MatchRef{Type: protocol.TypeStartMatch, MatchID: info.ID})
	started := apitest.Expect[protocol.RoundStarted](c)
	if ans := c.Move(started.RoundID, 1, "T6-F"); ans.Type != protocol.TypeMoveOK {
		t.Fatalf("move T6-F: %s", ans)
	}
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
	for _, tc := range []struct {
		args []string
		flag string // the flag the error names
	}{
		{[]string{"--redis", "http://nope"}, "--redis:"},
		{[]string{"--redis", "http://nope", "--redis-cluster"}, "--redis:"},
		{[]string{"--redis", "redis://127.0.0.1:1/0", "--redis-prefix", "a{b}"}, "--redis-prefix:"},
	} {
		err := run(context.Background(), append(tc.args, "--addr", "127.0.0.1:0"), env(nil), &out, nil)
		if err == nil || !strings.HasPrefix(err.Error(), tc.flag) {
			t.Errorf("run(%v) = %v, want an error naming %s", tc.args, err, tc.flag)
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

func TestOptionsTrustedProxies(t *testing.T) {
	var out bytes.Buffer
	o, err := parseOptions([]string{"--trusted-proxies", " 10.0.0.0/8, 192.0.2.7 ,::1"}, env(nil), &out)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"10.0.0.0/8", "192.0.2.7/32", "::1/128"}
	if len(o.Limits.TrustedProxies) != len(want) {
		t.Fatalf("TrustedProxies = %v, want %v", o.Limits.TrustedProxies, want)
	}
	for i, p := range o.Limits.TrustedProxies {
		if p.String() != want[i] {
			t.Errorf("TrustedProxies[%d] = %s, want %s", i, p, want[i])
		}
	}
	o, err = parseOptions(nil, env(map[string]string{"KLONDIKE_TRUSTED_PROXIES": "172.16.0.0/12"}), &out)
	if err != nil || len(o.Limits.TrustedProxies) != 1 || o.Limits.TrustedProxies[0].String() != "172.16.0.0/12" {
		t.Fatalf("from the environment: %v, %v", o.Limits.TrustedProxies, err)
	}
	if _, err := parseOptions([]string{"--trusted-proxies", "proxy.example"}, env(nil), &out); err == nil || !strings.Contains(err.Error(), "--trusted-proxies") {
		t.Fatalf("a host name: err = %v, want one naming --trusted-proxies", err)
	}
}

// TestLogDurations: a duration in a JSON log line reads as people write
// it, not in nanoseconds.
func TestLogDurations(t *testing.T) {
	var b strings.Builder
	log, err := newLogger(Options{LogLevel: "info", LogFormat: "json"}, &b)
	if err != nil {
		t.Fatal(err)
	}
	log.Info("shutting down", "grace", 10*time.Second)
	if !strings.Contains(b.String(), `"grace":"10s"`) {
		t.Errorf("log line %s: want \"grace\":\"10s\"", b.String())
	}
}
