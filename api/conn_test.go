package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// ioWait bounds every wait of these tests for something that should come
// at once.
const ioWait = 5 * time.Second

// fakeHandler answers "hello" (name → player id, attached to the hub) with
// "welcome", "panic" with a panic, and anything else with an echo.
type fakeHandler struct {
	hub    *Hub
	closed chan *Conn // every Closed call

	mu    sync.Mutex
	conns map[string]*Conn // by player id
}

func (h *fakeHandler) HandleMessage(ctx context.Context, c *Conn, env *Envelope) {
	switch env.Type {
	case "hello":
		var m struct{ Name string }
		json.Unmarshal(env.Raw, &m)
		c.SetPlayerID(m.Name)
		h.hub.Attach(m.Name, c)
		h.mu.Lock()
		h.conns[m.Name] = c
		h.mu.Unlock()
		c.SendJSON(map[string]string{"type": "welcome", "re": env.ID})
	case "panic":
		panic("handler bug")
	default:
		c.SendJSON(map[string]string{"type": "echo", "re": env.ID, "of": env.Type})
	}
}

func (h *fakeHandler) Closed(c *Conn) {
	if id := c.PlayerID(); id != "" {
		h.hub.Detach(id, c)
	}
	h.closed <- c
}

func (h *fakeHandler) conn(id string) *Conn {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.conns[id]
}

type testServer struct {
	ws  *WSServer
	ts  *httptest.Server
	h   *fakeHandler
	m   *Metrics
	url string
}

func newTestServer(t *testing.T, lim Limits) *testServer {
	t.Helper()
	m := NewMetrics("test")
	h := &fakeHandler{hub: NewHub(m), closed: make(chan *Conn, 100), conns: map[string]*Conn{}}
	ws := NewWSServer(h, lim, m, slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelDebug})))
	ts := httptest.NewServer(ws)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), ioWait)
		defer cancel()
		if err := ws.Shutdown(ctx); err != nil {
			t.Errorf("cleanup Shutdown: %v", err)
		}
		ts.Close()
	})
	return &testServer{ws: ws, ts: ts, h: h, m: m, url: "ws" + strings.TrimPrefix(ts.URL, "http") + "/ws"}
}

// dialRaw connects, with extra headers, and returns the handshake response.
func (s *testServer) dialRaw(t *testing.T, hdr http.Header) (*websocket.Conn, *http.Response, error) {
	t.Helper()
	d := websocket.Dialer{HandshakeTimeout: ioWait}
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

func send(t *testing.T, c *websocket.Conn, msg string) {
	t.Helper()
	c.SetWriteDeadline(time.Now().Add(ioWait))
	if err := c.WriteMessage(websocket.TextMessage, []byte(msg)); err != nil {
		t.Fatalf("send %s: %v", msg, err)
	}
}

func recv(t *testing.T, c *websocket.Conn) map[string]any {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(ioWait))
	_, b, err := c.ReadMessage()
	if err != nil {
		t.Fatalf("recv: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("recv: not JSON: %s", b)
	}
	return m
}

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
	if s.ws.Conns() != 1 || s.h.hub.Players() != 1 {
		t.Fatalf("conns %d players %d", s.ws.Conns(), s.h.hub.Players())
	}
	c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, "bye"), time.Now().Add(ioWait))
	ce, _ := readClose(t, c) // the server echoes the close
	if ce.Code != websocket.CloseNormalClosure {
		t.Fatalf("close echo %v", ce)
	}
	got := s.waitClosed(t, 1)
	if got[0].PlayerID() != "p1" || got[0].Context().Err() == nil {
		t.Fatalf("closed conn: player %q ctx %v", got[0].PlayerID(), got[0].Context().Err())
	}
	if s.ws.Conns() != 0 || s.h.hub.Players() != 0 {
		t.Fatalf("after close: conns %d players %d", s.ws.Conns(), s.h.hub.Players())
	}
	if v := testutil.ToFloat64(s.m.Connections); v != 0 {
		t.Fatalf("klondike_connections = %v", v)
	}
	if got[0].Send([]byte(`{}`)) {
		t.Fatal("Send on an ended connection succeeded")
	}
}

func TestOversizedFrameCloses1009(t *testing.T) {
	s := newTestServer(t, Limits{})
	c := s.hello(t, "p1")
	big := `{"type":"x","pad":"` + strings.Repeat("a", DefaultReadLimit) + `"}`
	send(t, c, big)
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
	if ce.Code != websocket.ClosePolicyViolation || ce.Text != ReasonRateLimit {
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
	if v := testutil.ToFloat64(s.m.RateLimited); v != 1 {
		t.Fatalf("klondike_rate_limited_total = %v, want 1", v)
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
	if v := testutil.ToFloat64(s.m.RateLimited); v != 1 {
		t.Fatalf("klondike_rate_limited_total = %v, want 1", v)
	}
	if s.ws.Conns() != 1 {
		t.Fatal("the connection was closed")
	}
}

func TestSlowConsumerDisconnected(t *testing.T) {
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
	if v := testutil.ToFloat64(s.m.SlowDisconnects); v != 1 {
		t.Fatalf("klondike_slow_disconnects_total = %v, want 1", v)
	}
	if conn.Send(big) {
		t.Fatal("Send after the slow disconnect succeeded")
	}
	if s.h.hub.Connected("p1") || s.ws.Conns() != 0 {
		t.Fatal("the slow connection is still registered")
	}
	_ = c
}

func TestNoHelloCloses(t *testing.T) {
	s := newTestServer(t, Limits{HelloTimeout: 200 * time.Millisecond})
	silent := s.dial(t)
	greeted := s.hello(t, "p1")
	expectClose(t, silent, websocket.ClosePolicyViolation, ReasonNoHello)
	// A connection that said hello in time outlives the timeout.
	time.Sleep(300 * time.Millisecond)
	send(t, greeted, `{"type":"still_here","id":"1"}`)
	if m := recv(t, greeted); m["type"] != "echo" {
		t.Fatalf("got %v", m)
	}
	// Messages other than hello don't count as hello.
	chatty := s.dial(t)
	send(t, chatty, `{"type":"x"}`)
	recv(t, chatty)
	expectClose(t, chatty, websocket.ClosePolicyViolation, ReasonNoHello)
}

func TestPingKeepsAliveAndSilenceEnds(t *testing.T) {
	t.Parallel()
	// Pings go out at 9/10 of pongWait: the pong has a tenth of it to come
	// back, which must hold on a loaded CI machine under -race.
	const pongWait = 3 * time.Second
	s := newTestServer(t, Limits{PongWait: pongWait})
	alive := s.hello(t, "alive")
	// A reading client answers pings (gorilla's default ping handler).
	msgs := make(chan []byte, 10)
	go func() {
		alive.SetReadDeadline(time.Now().Add(4 * pongWait))
		for range 10 {
			_, b, err := alive.ReadMessage()
			if err != nil {
				close(msgs)
				return
			}
			msgs <- b
		}
	}()
	deaf := s.hello(t, "deaf") // never reads again, so never pongs
	closed := s.waitClosed(t, 1)
	if closed[0].PlayerID() != "deaf" {
		t.Fatalf("%q was dropped", closed[0].PlayerID())
	}
	time.Sleep(pongWait * 3 / 2) // the pongs keep extending alive's deadline
	send(t, alive, `{"type":"x","id":"after"}`)
	select {
	case b, ok := <-msgs:
		if !ok || !bytes.Contains(b, []byte(`"after"`)) {
			t.Fatalf("got %s (open %v)", b, ok)
		}
	case <-time.After(ioWait):
		t.Fatal("no echo")
	}
	_ = deaf
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
	if v := testutil.ToFloat64(s.m.Rejected.WithLabelValues("origin")); v != 2 {
		t.Fatalf("rejected{origin} = %v, want 2", v)
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
	if v := testutil.ToFloat64(s.m.Rejected.WithLabelValues("ip_cap")); v != 1 {
		t.Fatalf("rejected{ip_cap} = %v", v)
	}
	a.Close()
	s.waitClosed(t, 1)
	if _, _, err := s.dialRaw(t, nil); err != nil {
		t.Fatalf("after one left: %v", err)
	}
}

func TestBadMessagesKeepTheConnection(t *testing.T) {
	s := newTestServer(t, Limits{})
	c := s.hello(t, "p1")
	long := strings.Repeat("i", maxIDLen+1)
	for _, tc := range []struct {
		frame string
		re    string
	}{
		{`not json`, ""},
		{`[1,2]`, ""},
		{`null`, ""},
		{`"hello"`, ""},
		{`{"id":"a1"}`, "a1"},
		{`{"type":5,"id":"a2"}`, "a2"},
		{`{"type":"","id":"a3"}`, "a3"},
		{`{"type":"x","id":7}`, ""},
		{`{"type":"x","id":"` + long + `"}`, ""},
		{`{"type":"x"`, ""},
	} {
		send(t, c, tc.frame)
		m := recv(t, c)
		re, _ := m["re"].(string)
		if m["type"] != "error" || m["code"] != "bad_request" || re != tc.re || m["message"] == "" {
			t.Errorf("%s: got %v", tc.frame, m)
		}
	}
	c.SetWriteDeadline(time.Now().Add(ioWait))
	if err := c.WriteMessage(websocket.BinaryMessage, []byte(`{"type":"x"}`)); err != nil {
		t.Fatal(err)
	}
	if m := recv(t, c); m["code"] != "bad_request" {
		t.Fatalf("binary frame: got %v", m)
	}
	send(t, c, `{"type":"ok","id":"last"}`)
	if m := recv(t, c); m["type"] != "echo" || m["re"] != "last" {
		t.Fatalf("after bad messages: got %v", m)
	}
}

func TestHandlerPanicClosesOnlyThatConnection(t *testing.T) {
	s := newTestServer(t, Limits{})
	a := s.hello(t, "a")
	b := s.hello(t, "b")
	send(t, a, `{"type":"panic"}`)
	expectClose(t, a, websocket.CloseInternalServerErr, ReasonInternal)
	if got := s.waitClosed(t, 1); got[0].PlayerID() != "a" {
		t.Fatalf("closed %q", got[0].PlayerID())
	}
	send(t, b, `{"type":"x","id":"b1"}`)
	if m := recv(t, b); m["re"] != "b1" {
		t.Fatalf("got %v", m)
	}
}

func TestHubReplacesOlderConnection(t *testing.T) {
	s := newTestServer(t, Limits{})
	first := s.hello(t, "p1")
	oldConn := s.h.conn("p1")
	second := s.hello(t, "p1")
	expectClose(t, first, CloseReplaced, ReasonReplaced)
	s.waitClosed(t, 1)
	hub := s.h.hub
	if !hub.Connected("p1") || hub.Players() != 1 {
		t.Fatalf("connected %v players %d", hub.Connected("p1"), hub.Players())
	}
	if hub.Detach("p1", oldConn) {
		t.Fatal("the replaced connection detached the newer one")
	}
	hub.Send("p1", []byte(`{"type":"pushed"}`))
	hub.Send("nobody", []byte(`{"type":"lost"}`))
	if m := recv(t, second); m["type"] != "pushed" {
		t.Fatalf("got %v", m)
	}
	if v := testutil.ToFloat64(s.m.Players); v != 1 {
		t.Fatalf("klondike_connected_players = %v", v)
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
		expectClose(t, c, websocket.CloseServiceRestart, ReasonRestarting)
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
	if v := testutil.ToFloat64(s.m.Rejected.WithLabelValues("shutdown")); v != 1 {
		t.Fatalf("rejected{shutdown} = %v", v)
	}
}

func TestShutdownGivesUpAtDeadline(t *testing.T) {
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

// TestSendQueue checks the send queue's bound, order and signal, and that
// it lets go of the room a burst took, so that an idle connection holds
// none.
func TestSendQueue(t *testing.T) {
	const limit = 40
	q := newSendQueue(limit)
	for i := range limit {
		if !q.push([]byte{byte(i)}) {
			t.Fatalf("push of message %d of %d refused", i+1, limit)
		}
	}
	if q.push([]byte{99}) {
		t.Fatalf("push of message %d accepted beyond the limit %d", limit+1, limit)
	}
	select {
	case <-q.ready:
	default:
		t.Fatal("no ready signal after pushes")
	}
	got := q.take(nil)
	if len(got) != limit {
		t.Fatalf("take() = %d messages, want %d", len(got), limit)
	}
	for i, m := range got {
		if len(m) != 1 || m[0] != byte(i) {
			t.Fatalf("take()[%d] = %v, want [%d]: out of order", i, m, i)
		}
	}
	if rest := q.take(got); len(rest) != 0 {
		t.Errorf("second take() = %d messages, want none", len(rest))
	}
	if cap(q.msgs) != 0 {
		t.Errorf("after a burst of %d the queue keeps room for %d messages, want none (at most %d are kept)",
			limit, cap(q.msgs), maxKeptQueue)
	}
	// A small slice goes back to the queue, its messages dropped.
	q.push([]byte("a"))
	small := q.take(nil)
	q.take(small)
	if cap(q.msgs) == 0 || small[0] != nil {
		t.Errorf("a one-message slice handed back: queue room %d, its message %q; want it reused and cleared", cap(q.msgs), small[0])
	}
	if !q.push([]byte("b")) || len(q.take(nil)) != 1 {
		t.Error("the queue does not work after its slices were swapped")
	}
}
