package main

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"klondike/api/servertest"
	"klondike/lobby/memstore"
)

// attackServer runs the real server on a loopback port of its own, served
// by hs (its handler is set here), and returns its WebSocket URL.
func attackServer(t *testing.T, hs *http.Server, wrap func(net.Listener) net.Listener) string {
	t.Helper()
	mem := memstore.NewBackends()
	srv := servertest.New(servertest.Config{Store: mem.Store, Players: mem.Players, Coord: mem.Coord, Challenges: mem.Challenges, Records: mem.Challenges, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Version: "test"})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if wrap != nil {
		ln = wrap(ln)
	}
	hs.Handler = srv
	go hs.Serve(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		_ = hs.Close()
	})
	return "ws://" + ln.Addr().String() + "/ws"
}

// runOne runs the attack ac names against wsURL.
func runOne(t *testing.T, wsURL string, ac attackConfig) attackResult {
	t.Helper()
	ac.Server = wsURL
	if err := ac.check(); err != nil {
		t.Fatalf("check %+v: %v", ac, err)
	}
	ac = ac.withDefaults()
	tg, err := newTarget(wsURL)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := attacks[ac.Name].run(ctx, tg, ac)
	if err != nil {
		t.Fatalf("%s: %v", ac.Name, err)
	}
	t.Logf("%s:\n  %s", ac.Name, strings.Join(res.lines(), "\n  "))
	return res
}

func TestAttackFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--attack", "nope", "--server", "ws://127.0.0.1:1/ws"},
		{"--attack", "ping-flood"},
		{"--attack", "ping-flood", "--server", "ws://10.1.2.3:8080/ws"},
		{"--attack", "ping-flood", "--embedded"},
		{"--attack", "ping-flood", "--server", "ws://127.0.0.1:1/ws", "--attack-conns", "-1"},
	} {
		if _, _, err := parseFlags(args, io.Discard); err == nil {
			t.Errorf("parseFlags(%q) accepted", args)
		}
	}
	_, ac, err := parseFlags([]string{"--attack", "idle-keepalive", "--server", "ws://127.0.0.1:1/ws", "--attack-wait", "5s"}, io.Discard)
	if err != nil || ac.Name != "idle-keepalive" || ac.Wait != 5*time.Second || ac.Duration != 0 {
		t.Errorf("parseFlags: %+v, %v; want idle-keepalive, wait 5s, no duration (the attack's default)", ac, err)
	}
}

func TestDescribeEnd(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{nil, "open"},
		{&websocket.CloseError{Code: 1008, Text: "rate limit exceeded"}, `close 1008 "rate limit exceeded"`},
		{io.EOF, "dropped without a close frame (EOF)"},
		{&net.OpError{Op: "read", Err: timeoutError{}}, "open (no answer)"},
	} {
		if got := describeEnd(tc.err); got != tc.want {
			t.Errorf("describeEnd(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}

type timeoutError struct{}

func (timeoutError) Error() string   { return "i/o timeout" }
func (timeoutError) Timeout() bool   { return true }
func (timeoutError) Temporary() bool { return true }

func TestAttackPingFlood(t *testing.T) {
	t.Parallel()
	url := attackServer(t, &http.Server{}, nil)
	const count = 3000
	r := runOne(t, url, attackConfig{Name: "ping-flood", Conns: 1, Count: count, Duration: 10 * time.Second, quiet: 200 * time.Millisecond}).(*pingFloodResult)
	if r.Connected != 1 || r.PingsSent == 0 || r.Pongs > r.PingsSent {
		t.Errorf("connected %d, pings %d, pongs %d: want 1 connection, pings sent, no more pongs than pings", r.Connected, r.PingsSent, r.Pongs)
	}
	// Either the server answered every ping and left the connection open,
	// or it closed it with a close frame the harness read.
	for end := range r.Ends {
		if end != "open after the flood" && !strings.HasPrefix(end, "closed by the server: close ") {
			t.Errorf("end %q: want open, or a close frame", end)
		}
	}
	if r.Honest.Error != "" || r.Honest.Before.Count == 0 {
		t.Errorf("honest player: %+v, want moves before the flood and no error", r.Honest)
	}
}

func TestAttackHTTPTimeouts(t *testing.T) {
	t.Parallel()
	const d = 200 * time.Millisecond
	url := attackServer(t, &http.Server{ReadHeaderTimeout: d, ReadTimeout: d, IdleTimeout: d}, nil)
	sh := runOne(t, url, attackConfig{Name: "slow-headers", Conns: 2, Wait: 10 * time.Second}).(*closeTimes)
	if sh.Closed != 2 || sh.Open != 0 {
		t.Errorf("slow-headers: closed %d, open %d; want 2 closed", sh.Closed, sh.Open)
	}
	sb := runOne(t, url, attackConfig{Name: "stalled-body", Conns: 2, Wait: 10 * time.Second}).(*stalledResult)
	for _, ct := range sb.Requests {
		if ct.Conns != 1 || ct.Closed != 1 || ct.Open != 0 {
			t.Errorf("%s: %d connections, %d closed, %d open; want 1 closed", ct.What, ct.Conns, ct.Closed, ct.Open)
		}
	}
	ik := runOne(t, url, attackConfig{Name: "idle-keepalive", Conns: 2, Wait: 10 * time.Second}).(*closeTimes)
	if ik.Closed != 2 || ik.Answered["200 OK"] != 2 {
		t.Errorf("idle-keepalive: closed %d, answers %v; want 2 answered 200 and closed", ik.Closed, ik.Answered)
	}
}

func TestAttackHTTPIPCap(t *testing.T) {
	t.Parallel()
	const limit = 5
	url := attackServer(t, &http.Server{}, func(ln net.Listener) net.Listener { return &capListener{Listener: ln, max: limit} })
	r := runOne(t, url, attackConfig{Name: "http-ip-cap", Conns: 50}).(*capResult)
	if r.Accepted != limit || !strings.Contains(r.Refusal, "429") || r.Tried != limit+maxRefusedCap {
		t.Errorf("accepted %d of %d, refusal %q; want %d accepted, then %d refused with 429", r.Accepted, r.Tried, r.Refusal, limit, maxRefusedCap)
	}
}

// capListener answers 429 to every connection beyond max open at once.
type capListener struct {
	net.Listener
	max  int
	mu   sync.Mutex
	open int
}

func (l *capListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		l.mu.Lock()
		over := l.open >= l.max
		if !over {
			l.open++
		}
		l.mu.Unlock()
		if !over {
			return &countedConn{Conn: c, l: l}, nil
		}
		go func() {
			defer c.Close()
			_, _ = io.WriteString(c, "HTTP/1.1 429 Too Many Requests\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
			c.SetReadDeadline(time.Now().Add(time.Second))
			_, _ = io.Copy(io.Discard, c)
		}()
	}
}

type countedConn struct {
	net.Conn
	l    *capListener
	once sync.Once
}

func (c *countedConn) Close() error {
	c.once.Do(func() { c.l.mu.Lock(); c.l.open--; c.l.mu.Unlock() })
	return c.Conn.Close()
}

func TestAttackLobby(t *testing.T) {
	t.Parallel()
	url := attackServer(t, &http.Server{}, nil)
	ns := runOne(t, url, attackConfig{Name: "new-sessions", Conns: 3, Wait: 10 * time.Second}).(*sessionsResult)
	if ns.Tried != 3 || ns.Granted+len(ns.Refused) == 0 {
		t.Errorf("new-sessions: %+v, want 3 hellos answered", ns)
	}
	am := runOne(t, url, attackConfig{Name: "abandoned-matches", Matches: 3, Wait: time.Millisecond}).(*abandonedResult)
	if am.Created != 3 || len(am.Listed) == 0 || am.Listed[0].Listed != 3 {
		t.Errorf("abandoned-matches: created %d, listed %+v; want 3 created and listed at first", am.Created, am.Listed)
	}
	sr := runOne(t, url, attackConfig{Name: "slow-reader", Matches: 3, Seats: 2, Conns: 2, Rate: 20, Duration: 300 * time.Millisecond, Wait: time.Millisecond}).(*slowReaderResult)
	if sr.Created != 3 || sr.ListMatches < 3 || sr.Connected != 2 || sr.Resumed != 2 || sr.Requests == 0 || sr.Mem.HeapPeak == 0 {
		t.Errorf("slow-reader: %+v; want 3 matches listed, 2 readers resuming the creators' sessions, requests sent, the peak read", sr)
	}
}
