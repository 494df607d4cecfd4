package ws

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gorilla/websocket"

	"klondike/api/ws/wstest"
)

// closeTest is a close code of the tests' own (4000–4999 are the
// application's).
const closeTest = 4001

// ioWait bounds every wait of these tests for something that should come
// at once.
const ioWait = 5 * time.Second

// fakeHandler answers "hello" (name → user id) with "welcome", "panic"
// with a panic, "big" with a reply of bigReply bytes, "reply" with a Reply
// and others' messages, and anything else with an echo; a message it
// cannot read gets an "error". It reads a message's type and id with
// encoding/json: the transport leaves what a message means to its user.
type fakeHandler struct {
	closed chan *Conn      // every Closed call
	big    chan bigOutcome // every "big" answered
	after  atomic.Int64    // AfterMessage calls

	mu    sync.Mutex
	conns map[string]*Conn // by user id
}

// fakeMsg is what fakeHandler reads of a message.
type fakeMsg struct {
	Type string
	ID   string
	Name string
}

func (h *fakeHandler) HandleMessage(c *Conn, msg []byte) {
	var m fakeMsg
	if err := json.Unmarshal(msg, &m); err != nil {
		c.SendJSON(map[string]string{"type": "error", "code": "bad_request", "message": err.Error()})
		return
	}
	switch m.Type {
	case "hello":
		c.SetUserID(m.Name)
		h.mu.Lock()
		h.conns[m.Name] = c
		h.mu.Unlock()
		c.SendJSON(map[string]string{"type": "welcome", "re": m.ID})
	case "panic":
		panic("handler bug")
	case "big":
		// A reply of its own, as each encoding makes one, sent (not
		// replied) so that the reader goes on reading while it is written.
		msg := make([]byte, bigReply)
		copy(msg, `{"type":"big","pad":"`)
		for i := len(`{"type":"big","pad":"`); i < len(msg)-2; i++ {
			msg[i] = 'b'
		}
		copy(msg[len(msg)-2:], `"}`)
		ok := c.Send(msg)
		h.big <- bigOutcome{ok: ok, held: c.send.heldBytes()}
	case "reply":
		// The answer by Reply, then messages of another goroutine queued
		// while this dispatch still runs: the reader writes them all
		// once it returns, the answer first.
		c.Reply([]byte(`{"type":"reply","re":"` + m.ID + `"}`))
		done := make(chan struct{})
		go func() {
			defer close(done)
			for i := range replyOthers {
				c.Send(fmt.Appendf(nil, `{"type":"other","i":%d}`, i))
			}
		}()
		<-done
	default:
		c.SendJSON(map[string]string{"type": "echo", "re": m.ID, "of": m.Type})
	}
}

// refused answers a refused message with an error naming why, and the
// message's id when it has one.
func (h *fakeHandler) refused(c *Conn, msg []byte, why Refusal) {
	var m fakeMsg
	json.Unmarshal(msg, &m)
	code := map[Refusal]string{RateLimited: "rate_limited", Binary: "bad_request"}[why]
	c.SendJSON(map[string]string{"type": "error", "re": m.ID, "code": code, "message": why.String()})
}

func (h *fakeHandler) Closed(c *Conn) {
	h.closed <- c
}

func (h *fakeHandler) conn(id string) *Conn {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.conns[id]
}

// testCloses are the tests' close frames: reasons of their own, so that
// a test sees the configured one go out.
var testCloses = Closes{
	NoHello: "test: no hello", Flood: "test: flood", TooBig: "test: too big", Internal: "test: internal",
	Restarting: "test: restarting", SlowCode: 4008, Slow: "test: slow",
}

// count is a Counter and a Gauge.
type count struct{ n atomic.Int64 }

func (c *count) Inc()          { c.n.Add(1) }
func (c *count) Dec()          { c.n.Add(-1) }
func (c *count) Add(v float64) { c.n.Add(int64(v)) }
func (c *count) get() int64    { return c.n.Load() }

// testMetrics are the tests' counts of a server.
type testMetrics struct {
	conns, in, out, slow, limited count
	mu                            sync.Mutex
	rejected                      map[string]int
}

func (m *testMetrics) metrics() Metrics {
	return Metrics{
		Connections: &m.conns, MessagesIn: &m.in, MessagesOut: &m.out, SlowDisconnects: &m.slow, RateLimited: &m.limited,
		Rejected: func(reason string) {
			m.mu.Lock()
			defer m.mu.Unlock()
			m.rejected[reason]++
		},
	}
}

func (m *testMetrics) rejects(reason string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.rejected[reason]
}

type testServer struct {
	ws  *Server
	ts  *httptest.Server // nil for a server on an in-memory network
	h   *fakeHandler
	m   *testMetrics
	url string
	// netDial makes the clients' connections; nil dials url's host.
	netDial func(ctx context.Context, network, addr string) (net.Conn, error)
}

// bigReply is the size of the fake handler's answer to "big": about the
// largest list_matches reply of a lobby full of long names.
const bigReply = 400 << 10

// bigOutcome is what became of a "big" reply: whether Send took it, and
// the bytes the connection's send queue held right after.
type bigOutcome struct {
	ok   bool
	held int64
}

func newTestServer(t *testing.T, lim Limits) *testServer {
	t.Helper()
	return newTestServerClock(t, lim, nil)
}

// newTestServerClock is newTestServer with the rate limiter's clock now
// (time.Now if nil), set before the server accepts any connection.
func newTestServerClock(t *testing.T, lim Limits, now func() time.Time) *testServer {
	t.Helper()
	ws, h, m := newFakeWSServer(t, lim)
	if now != nil {
		ws.now = now
	}
	ts := httptest.NewServer(ws)
	t.Cleanup(func() {
		shutdownWS(t, ws)
		ts.Close()
	})
	return &testServer{ws: ws, ts: ts, h: h, m: m, url: "ws" + strings.TrimPrefix(ts.URL, "http") + "/ws"}
}

// newFakeWSServer makes a Server that hands its messages to a
// fakeHandler, counts its AfterMessage calls and logs to the test's output.
func newFakeWSServer(t *testing.T, lim Limits) (*Server, *fakeHandler, *testMetrics) {
	m := &testMetrics{rejected: map[string]int{}}
	h := &fakeHandler{closed: make(chan *Conn, 100), big: make(chan bigOutcome, 1000), conns: map[string]*Conn{}}
	ws := NewServer(h, Config{
		Limits: lim, Closes: testCloses, Metrics: m.metrics(), Refused: h.refused,
		AfterMessage: func(*Conn) { h.after.Add(1) },
		Logger:       slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	return ws, h, m
}

// shutdownWS shuts ws down, within ioWait, at a test's end.
func shutdownWS(t *testing.T, ws *Server) {
	ctx, cancel := context.WithTimeout(context.Background(), ioWait)
	defer cancel()
	if err := ws.Shutdown(ctx); err != nil {
		t.Errorf("cleanup Shutdown: %v", err)
	}
}

// dialRaw connects, with extra headers, and returns the handshake response.
func (s *testServer) dialRaw(t *testing.T, hdr http.Header) (*websocket.Conn, *http.Response, error) {
	t.Helper()
	d := websocket.Dialer{HandshakeTimeout: ioWait, NetDialContext: s.netDial}
	c, resp, err := d.Dial(s.url, hdr)
	if c != nil {
		t.Cleanup(func() { c.Close() })
	}
	return c, resp, err
}

func (s *testServer) dial(t *testing.T) *websocket.Conn {
	t.Helper()
	c, _, err := s.dialRaw(t, nil)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	return c
}

// hello dials and says hello as name.
func (s *testServer) hello(t *testing.T, name string) *websocket.Conn {
	t.Helper()
	c := s.dial(t)
	send(t, c, `{"type":"hello","id":"h","name":"`+name+`"}`)
	if m := recv(t, c); m["type"] != "welcome" {
		t.Fatalf("hello: got %v", m)
	}
	return c
}

// waitClosed waits for n Closed calls.
func (s *testServer) waitClosed(t *testing.T, n int) []*Conn {
	t.Helper()
	var got []*Conn
	timeout := time.After(ioWait)
	for len(got) < n {
		select {
		case c := <-s.h.closed:
			got = append(got, c)
		case <-timeout:
			t.Fatalf("%d of %d connections closed", len(got), n)
		}
	}
	return got
}

var (
	send = wstest.Send
	recv = wstest.Recv
)

// readClose reads (at most 1000 messages) until the connection ends and
// returns its close error, or fails if it ended otherwise.
func readClose(t *testing.T, c *websocket.Conn) (*websocket.CloseError, [][]byte) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(ioWait))
	var msgs [][]byte
	for range 1000 {
		_, b, err := c.ReadMessage()
		if err != nil {
			var ce *websocket.CloseError
			if !errors.As(err, &ce) {
				t.Fatalf("connection ended without a close frame: %v", err)
			}
			return ce, msgs
		}
		msgs = append(msgs, b)
	}
	t.Fatal("no close after 1000 messages")
	return nil, nil
}

func expectClose(t *testing.T, c *websocket.Conn, code int, reason string) {
	t.Helper()
	ce, _ := readClose(t, c)
	if ce.Code != code || (reason != "" && ce.Text != reason) {
		t.Fatalf("closed with %d %q, want %d %q", ce.Code, ce.Text, code, reason)
	}
}

func TestEchoAndClientClose(t *testing.T) {
	s := newTestServer(t, Limits{})
	c := s.hello(t, "p1")
	send(t, c, `{"type":"anything","id":"42","x":[1,2]}`)
	if m := recv(t, c); m["type"] != "echo" || m["re"] != "42" || m["of"] != "anything" {
		t.Fatalf("got %v", m)
	}
	if s.ws.Conns() != 1 || s.m.conns.get() != 1 {
		t.Fatalf("Conns() = %d, connections counted %d; want 1", s.ws.Conns(), s.m.conns.get())
	}
	c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, "bye"), time.Now().Add(ioWait))
	ce, _ := readClose(t, c) // the server echoes the close
	if ce.Code != websocket.CloseNormalClosure {
		t.Fatalf("close echo %v", ce)
	}
	got := s.waitClosed(t, 1)
	if got[0].UserID() != "p1" || got[0].Context().Err() == nil {
		t.Fatalf("closed conn: user %q ctx %v", got[0].UserID(), got[0].Context().Err())
	}
	if s.ws.Conns() != 0 || s.m.conns.get() != 0 {
		t.Fatalf("after close: Conns() = %d, connections counted %d; want 0", s.ws.Conns(), s.m.conns.get())
	}
	if s.m.in.get() != 2 || s.h.after.Load() != 2 {
		t.Fatalf("%d messages counted in, %d AfterMessage calls; want 2 and 2", s.m.in.get(), s.h.after.Load())
	}
	if got[0].Send([]byte(`{}`)) {
		t.Fatal("Send on an ended connection succeeded")
	}
}

// replyOthers is how many messages the fake handler's "reply" has another
// goroutine send during the dispatch.
const replyOthers = 40

// TestReplyWrittenByReader: a Handler's Reply, which the read goroutine
// writes itself after the dispatch, goes out before what others sent
// during the dispatch, all of it in order, and the connection reads on.
func TestReplyWrittenByReader(t *testing.T) {
	s := newTestServer(t, Limits{})
	c := s.hello(t, "p1")
	for round := range 20 {
		id := fmt.Sprint(round)
		send(t, c, `{"type":"reply","id":"`+id+`"}`)
		if m := recv(t, c); m["type"] != "reply" || m["re"] != id {
			t.Fatalf("round %d: first message %v, want the reply", round, m)
		}
		for i := range replyOthers {
			if m := recv(t, c); m["type"] != "other" || m["i"] != float64(i) {
				t.Fatalf("round %d: got %v, want other message %d", round, m, i)
			}
		}
		send(t, c, `{"type":"anything","id":"e`+id+`"}`)
		if m := recv(t, c); m["type"] != "echo" || m["re"] != "e"+id {
			t.Fatalf("round %d: got %v, want the echo", round, m)
		}
	}
	// A Reply on an ended connection is refused, as Send is.
	conn := s.h.conn("p1")
	c.Close()
	s.waitClosed(t, 1)
	if conn.Reply([]byte(`{}`)) {
		t.Fatal("Reply on an ended connection succeeded")
	}
}

func TestOversizedFrameCloses1009(t *testing.T) {
	s := newTestServer(t, Limits{})
	c := s.hello(t, "p1")
	big := `{"type":"x","pad":"` + strings.Repeat("a", DefaultReadLimit) + `"}`
	send(t, c, big)
	// gorilla writes the 1009 close frame itself, without a reason.
	expectClose(t, c, websocket.CloseMessageTooBig, "")
	c.Close() // else the server drains the socket for CloseWait
	s.waitClosed(t, 1)
}

func TestFloodClosesWithPolicyViolation(t *testing.T) {
	s := newTestServer(t, Limits{})
	c := s.hello(t, "p1")
	c.SetWriteDeadline(time.Now().Add(ioWait))
	for range 500 {
		if err := c.WriteMessage(websocket.TextMessage, []byte(`{"type":"spam"}`)); err != nil {
			break // the server may have gone already
		}
	}
	ce, msgs := readClose(t, c)
	if ce.Code != websocket.ClosePolicyViolation || ce.Text != testCloses.Flood {
		t.Fatalf("closed with %d %q", ce.Code, ce.Text)
	}
	var echoes, limited int
	for _, b := range msgs {
		switch {
		case bytes.Contains(b, []byte(`"echo"`)):
			echoes++
		case bytes.Contains(b, []byte(`"rate_limited"`)):
			limited++
		}
	}
	// hello took one token of the burst.
	if echoes < DefaultMsgBurst-1 || echoes > DefaultMsgBurst+5 || limited == 0 {
		t.Fatalf("%d echoes, %d rate_limited errors", echoes, limited)
	}
	s.waitClosed(t, 1)
	if v := s.m.limited.get(); v != 1 {
		t.Fatalf("rate limited connections counted %d, want 1", v)
	}
}

func TestRateLimitedMessageIsRefusedNotClosed(t *testing.T) {
	s := newTestServer(t, Limits{MsgRate: 1, MsgBurst: 3})
	c := s.hello(t, "p1") // one token
	for i := range 3 {
		send(t, c, `{"type":"x"}`)
		m := recv(t, c)
		want := "echo"
		if i == 2 {
			want = "error"
		}
		if m["type"] != want {
			t.Fatalf("message %d: got %v", i, m)
		}
		if i == 2 && m["code"] != "rate_limited" {
			t.Fatalf("got %v", m)
		}
	}
	if v := s.m.limited.get(); v != 1 {
		t.Fatalf("rate limited connections counted %d, want 1", v)
	}
	if s.ws.Conns() != 1 {
		t.Fatal("the connection was closed")
	}
}

func TestSlowConsumerDisconnected(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, Limits{SendQueue: 8, WriteWait: time.Second, CloseWait: 200 * time.Millisecond})
	c := s.hello(t, "p1")
	conn := s.h.conn("p1")
	big := []byte(`{"type":"blob","pad":"` + strings.Repeat("b", 256<<10) + `"}`)
	// The client never reads: the kernel buffers fill, then the queue.
	refused := false
	deadline := time.Now().Add(ioWait)
	for i := 0; i < 100000 && time.Now().Before(deadline); i++ {
		if !conn.Send(big) {
			refused = true
			break
		}
	}
	if !refused {
		t.Fatal("the send queue never overflowed")
	}
	s.waitClosed(t, 1)
	if v := s.m.slow.get(); v != 1 {
		t.Fatalf("slow disconnects counted %d, want 1", v)
	}
	if conn.Send(big) {
		t.Fatal("Send after the slow disconnect succeeded")
	}
	if s.ws.Conns() != 0 {
		t.Fatal("the slow connection is still registered")
	}
	ce, _ := readClose(t, c)
	if ce.Code != testCloses.SlowCode || ce.Text != testCloses.Slow {
		t.Fatalf("closed with %d %q, want %d %q", ce.Code, ce.Text, testCloses.SlowCode, testCloses.Slow)
	}
}

// TestNoHelloCloses checks that a connection that has not said hello
// within HelloTimeout is closed then, not before, and that one that did
// outlives the timeout. It runs in a synctest bubble, on the bubble's
// clock.
func TestNoHelloCloses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const helloTimeout = 200 * time.Millisecond
		s := newPipeServer(t, Limits{HelloTimeout: helloTimeout})
		start := time.Now()
		silent := s.dial(t)
		greeted := s.hello(t, "p1")
		expectClose(t, silent, websocket.ClosePolicyViolation, testCloses.NoHello)
		if d := time.Since(start); d != helloTimeout {
			t.Errorf("the silent connection was closed after %v, want HelloTimeout %v", d, helloTimeout)
		}
		// A connection that said hello in time outlives the timeout.
		time.Sleep(3 * helloTimeout / 2)
		send(t, greeted, `{"type":"still_here","id":"1"}`)
		if m := recv(t, greeted); m["type"] != "echo" {
			t.Fatalf("got %v", m)
		}
		// Messages other than hello don't count as hello.
		chatty := s.dial(t)
		send(t, chatty, `{"type":"x"}`)
		recv(t, chatty)
		expectClose(t, chatty, websocket.ClosePolicyViolation, testCloses.NoHello)
	})
}

// TestPingKeepsAliveAndSilenceEnds checks that a client that answers the
// pings stays connected long past PongWait, and that one that sends
// nothing, pongs included, is dropped once PongWait has passed since its
// last frame, not before. It runs in a synctest bubble, on the bubble's
// clock, whatever the machine's load.
func TestPingKeepsAliveAndSilenceEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const pongWait = 3 * time.Second
		s := newPipeServer(t, Limits{PongWait: pongWait})
		alive := s.hello(t, "alive")
		// A reading client answers pings (gorilla's default ping handler).
		msgs := make(chan []byte, 10)
		go func() {
			defer close(msgs)
			alive.SetReadDeadline(time.Now().Add(10 * pongWait))
			for range 10 {
				_, b, err := alive.ReadMessage()
				if err != nil {
					return
				}
				msgs <- b
			}
		}()
		// The deaf client reads what comes, as a peer's TCP stack takes it
		// in, and answers no ping: after its hello it sends nothing.
		deaf := s.hello(t, "deaf")
		start := time.Now()
		deaf.SetPingHandler(func(string) error { return nil })
		go func() {
			for {
				if _, _, err := deaf.ReadMessage(); err != nil {
					return
				}
			}
		}()
		closed := s.waitClosed(t, 1)
		if closed[0].UserID() != "deaf" {
			t.Fatalf("%q was dropped", closed[0].UserID())
		}
		if d := time.Since(start); d != pongWait {
			t.Errorf("the deaf client was dropped %v after its last frame, want PongWait %v", d, pongWait)
		}
		time.Sleep(3 * pongWait) // the pongs keep extending alive's deadline
		send(t, alive, `{"type":"x","id":"after"}`)
		select {
		case b, ok := <-msgs:
			if !ok || !bytes.Contains(b, []byte(`"after"`)) {
				t.Fatalf("got %s (open %v)", b, ok)
			}
		case <-time.After(ioWait):
			t.Fatal("no echo")
		}
	})
}

func TestOriginCheck(t *testing.T) {
	s := newTestServer(t, Limits{AllowedOrigins: []string{"https://Game.Example"}})
	host := strings.TrimPrefix(s.ts.URL, "http://")
	for _, tc := range []struct {
		origin string
		ok     bool
	}{
		{"", true},
		{"http://" + host, true},
		{"https://game.example", true},
		{"http://evil.example", false},
		{"null", false},
	} {
		hdr := http.Header{}
		if tc.origin != "" {
			hdr.Set("Origin", tc.origin)
		}
		c, resp, err := s.dialRaw(t, hdr)
		if tc.ok {
			if err != nil {
				t.Errorf("origin %q refused: %v", tc.origin, err)
				continue
			}
			c.Close()
			continue
		}
		if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
			t.Errorf("origin %q: err %v, resp %v; want 403", tc.origin, err, resp)
		}
	}
	if v := s.m.rejects("origin"); v != 2 {
		t.Fatalf("refusals for the origin counted %d, want 2", v)
	}
}

func TestPerIPCap(t *testing.T) {
	s := newTestServer(t, Limits{MaxConnsPerIP: 2})
	a := s.dial(t)
	s.dial(t)
	_, resp, err := s.dialRaw(t, nil)
	if err == nil || resp == nil || resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("third connection: err %v resp %v, want 429", err, resp)
	}
	if v := s.m.rejects("ip_cap"); v != 1 {
		t.Fatalf("refusals for the cap counted %d, want 1", v)
	}
	a.Close()
	s.waitClosed(t, 1)
	if _, _, err := s.dialRaw(t, nil); err != nil {
		t.Fatalf("after one left: %v", err)
	}
}

// TestBinaryFrameRefused: a binary frame is not handed to the Handler but
// to Config.Refused, whose answer goes out, and the connection reads on.
func TestBinaryFrameRefused(t *testing.T) {
	s := newTestServer(t, Limits{})
	c := s.hello(t, "p1")
	c.SetWriteDeadline(time.Now().Add(ioWait))
	if err := c.WriteMessage(websocket.BinaryMessage, []byte(`{"type":"x","id":"b"}`)); err != nil {
		t.Fatal(err)
	}
	if m := recv(t, c); m["type"] != "error" || m["code"] != "bad_request" || m["re"] != "b" || m["message"] != Binary.String() {
		t.Fatalf("binary frame: got %v, want Refused's error", m)
	}
	send(t, c, `{"type":"ok","id":"last"}`)
	if m := recv(t, c); m["type"] != "echo" || m["re"] != "last" {
		t.Fatalf("after a binary frame: got %v", m)
	}
	// AfterMessage runs once the reply is queued, so the echo may arrive
	// first: wait for the second call before counting.
	for deadline := time.Now().Add(ioWait); s.h.after.Load() < 2 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if n := s.h.after.Load(); n != 2 {
		t.Fatalf("%d AfterMessage calls, want 2: hello and the echo, not the refused frame", n)
	}
}

func TestHandlerPanicClosesOnlyThatConnection(t *testing.T) {
	s := newTestServer(t, Limits{})
	a := s.hello(t, "a")
	b := s.hello(t, "b")
	send(t, a, `{"type":"panic"}`)
	expectClose(t, a, websocket.CloseInternalServerErr, testCloses.Internal)
	if got := s.waitClosed(t, 1); got[0].UserID() != "a" {
		t.Fatalf("closed %q", got[0].UserID())
	}
	send(t, b, `{"type":"x","id":"b1"}`)
	if m := recv(t, b); m["re"] != "b1" {
		t.Fatalf("got %v", m)
	}
}

func TestShutdownClosesWith1012(t *testing.T) {
	s := newTestServer(t, Limits{})
	clients := []*websocket.Conn{s.hello(t, "a"), s.hello(t, "b"), s.dial(t)}
	errc := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), ioWait)
		defer cancel()
		errc <- s.ws.Shutdown(ctx)
	}()
	for _, c := range clients {
		expectClose(t, c, websocket.CloseServiceRestart, testCloses.Restarting)
	}
	if err := <-errc; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if s.ws.Conns() != 0 || len(s.h.closed) != 3 {
		t.Fatalf("after Shutdown: %d conns, %d Closed calls", s.ws.Conns(), len(s.h.closed))
	}
	_, resp, err := s.dialRaw(t, nil)
	if err == nil || resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("dial after Shutdown: err %v resp %v, want 503", err, resp)
	}
	if v := s.m.rejects("shutdown"); v != 1 {
		t.Fatalf("refusals for the shutdown counted %d, want 1", v)
	}
}

func TestShutdownGivesUpAtDeadline(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, Limits{CloseWait: time.Minute})
	c := s.hello(t, "p1") // never reads, so never answers the close
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := s.ws.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Shutdown: %v", err)
	}
	if d := time.Since(start); d > ioWait {
		t.Fatalf("Shutdown took %v", d)
	}
	// The TCP connections were dropped: the pumps end soon after.
	s.waitClosed(t, 1)
	_ = c
}

// connGoroutines counts the goroutines of this package's connections: the
// readers (Conn.run) and the writers (Conn.writeLoop).
func connGoroutines() (readers, writers int) { return countConnGoroutines(false) }

// countConnGoroutines is connGoroutines; with inBubble it counts only
// those of synctest bubbles (the caller's: no other test of this package
// runs one).
func countConnGoroutines(inBubble bool) (readers, writers int) {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	for _, g := range bytes.Split(buf, []byte("\n\n")) {
		header, _, _ := bytes.Cut(g, []byte("\n"))
		if inBubble && !bytes.Contains(header, []byte("synctest bubble")) {
			continue
		}
		switch {
		case bytes.Contains(g, []byte("ws.(*Conn).writeLoop")):
			writers++
		case bytes.Contains(g, []byte("ws.(*Conn).run")):
			readers++
		}
	}
	return readers, writers
}

// waitGoroutines waits until the connections' goroutines are readers and
// writers, and fails with what they are otherwise.
func waitGoroutines(t *testing.T, readers, writers int) {
	t.Helper()
	deadline := time.Now().Add(ioWait)
	for {
		r, w := connGoroutines()
		if r == readers && w == writers {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d readers and %d writers, want %d and %d", r, w, readers, writers)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestGoroutinesEndAfterClose checks that every goroutine of a connection
// ends after it closed, whichever side closed it and whatever was being
// written, and that its ping timer is stopped.
func TestGoroutinesEndAfterClose(t *testing.T) {
	s := newTestServer(t, Limits{SendQueue: 8, WriteWait: time.Second, CloseWait: 200 * time.Millisecond})
	peer := s.hello(t, "peer") // closes itself
	slow := s.hello(t, "slow") // never reads: a slow consumer
	busy := s.hello(t, "busy") // closed by the server with messages queued
	s.hello(t, "shutdown")     // closed by Shutdown
	waitGoroutines(t, 4, 0)
	conns := []*Conn{s.h.conn("peer"), s.h.conn("slow"), s.h.conn("busy"), s.h.conn("shutdown")}

	peer.Close()
	big := []byte(`{"type":"blob","pad":"` + strings.Repeat("b", 256<<10) + `"}`)
	for i := 0; i < 10000 && conns[1].Send(big); i++ {
	}
	if v := s.m.slow.get(); v != 1 {
		t.Fatalf("slow disconnects counted %d, want 1: the slow consumer was not dropped", v)
	}
	for range 5 {
		conns[2].Send([]byte(`{"type":"queued"}`))
	}
	conns[2].Close(closeTest, "busy")
	ce, msgs := readClose(t, busy)
	if ce.Code != closeTest || len(msgs) != 5 {
		t.Fatalf("busy: %d messages then close %d; want the 5 queued ones, then %d", len(msgs), ce.Code, closeTest)
	}
	s.waitClosed(t, 3)
	ctx, cancel := context.WithTimeout(context.Background(), ioWait)
	defer cancel()
	if err := s.ws.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	s.waitClosed(t, 1)
	waitGoroutines(t, 0, 0)
	for i, c := range conns {
		if c.ping.Stop() {
			t.Errorf("connection %d: the ping timer was still armed after the end", i)
		}
	}
	_ = slow
}

// TestCloseAfterQueuedMessages checks that the close frame of Close goes
// out after every message queued before it, in order, from an idle
// connection (no writer running when Close comes) and from a busy one.
func TestCloseAfterQueuedMessages(t *testing.T) {
	s := newTestServer(t, Limits{})
	for _, queued := range []int{0, 1, 100} {
		name := fmt.Sprintf("q%d", queued)
		c := s.hello(t, name)
		conn := s.h.conn(name)
		waitGoroutines(t, 1, 0)
		for i := range queued {
			if !conn.Send([]byte(fmt.Sprintf(`{"type":"m","n":%d}`, i))) {
				t.Fatalf("Send %d refused", i)
			}
		}
		conn.Close(closeTest, "done")
		ce, msgs := readClose(t, c)
		if ce.Code != closeTest || ce.Text != "done" {
			t.Fatalf("%d queued: closed with %d %q", queued, ce.Code, ce.Text)
		}
		if len(msgs) != queued {
			t.Fatalf("%d queued: %d messages before the close frame", queued, len(msgs))
		}
		for i, b := range msgs {
			if want := fmt.Sprintf(`{"type":"m","n":%d}`, i); string(b) != want {
				t.Fatalf("%d queued: message %d is %s, want %s", queued, i, b, want)
			}
		}
		c.Close()
		s.waitClosed(t, 1)
		waitGoroutines(t, 0, 0)
	}
}
