package ws

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// manualClock is a rate limiter's clock that moves only when told to.
type manualClock struct{ ns atomic.Int64 }

func (c *manualClock) now() time.Time          { return time.Unix(0, c.ns.Load()) }
func (c *manualClock) advance(d time.Duration) { c.ns.Add(int64(d)) }

// countPongs makes c count the pongs it reads.
func countPongs(c *websocket.Conn) *atomic.Int64 {
	var n atomic.Int64
	c.SetPongHandler(func(string) error { n.Add(1); return nil })
	return &n
}

// writeControls writes n control frames of type mt, until the first that
// fails (the server may have closed already), and returns how many went.
func writeControls(c *websocket.Conn, mt, n int) int {
	for i := range n {
		if err := c.WriteControl(mt, []byte("x"), time.Now().Add(ioWait)); err != nil {
			return i
		}
	}
	return n
}

// TestPingFloodCloses: pings take tokens of the message budget; those
// within it are answered, those over it are not, and a flood closes the
// connection with 1008, as a flood of messages does.
func TestPingFloodCloses(t *testing.T) {
	var clock manualClock // frozen: the budget does not refill
	s := newTestServerClock(t, Limits{}, clock.now)
	c := s.hello(t, "p1") // hello took a token
	pongs := countPongs(c)
	const pings = 3 * DefaultMsgBurst
	sent := writeControls(c, websocket.PingMessage, pings)
	expectClose(t, c, websocket.ClosePolicyViolation, testCloses.Flood)
	// The burst less hello's token are answered; the next MsgBurst are
	// refused unanswered; the one after is the flood.
	if got, want := pongs.Load(), int64(DefaultMsgBurst-1); got != want {
		t.Fatalf("%d pongs for %d pings sent, want %d", got, sent, want)
	}
	if sent < 2*DefaultMsgBurst {
		t.Fatalf("only %d pings went before the close", sent)
	}
	s.waitClosed(t, 1)
	if v := s.m.limited.get(); v != 1 {
		t.Fatalf("rate limited connections counted %d, want 1", v)
	}
	if v := s.m.in.get(); v != 1 {
		t.Fatalf("messages counted in: %d, want 1 (hello): control frames are not messages", v)
	}
}

// TestPingsWithinRateAnswered: pings share the budget with messages; one
// over it gets no pong and leaves the connection open, and once the budget
// refills pings are answered again.
func TestPingsWithinRateAnswered(t *testing.T) {
	var clock manualClock
	s := newTestServerClock(t, Limits{MsgRate: 1, MsgBurst: 4}, clock.now)
	c := s.hello(t, "p1") // 3 tokens left
	pongs := countPongs(c)
	// step sends pings, then a message, and reads the message's answer:
	// the pongs of the pings come before it.
	step := func(pings int, id string, wantPongs int64, wantType string) {
		t.Helper()
		if n := writeControls(c, websocket.PingMessage, pings); n != pings {
			t.Fatalf("%d of %d pings sent", n, pings)
		}
		send(t, c, `{"type":"x","id":"`+id+`"}`)
		m := recv(t, c)
		if m["type"] != wantType || m["re"] != id {
			t.Fatalf("message %s: got %v, want %s", id, m, wantType)
		}
		if got := pongs.Load(); got != wantPongs {
			t.Fatalf("after message %s: %d pongs, want %d", id, got, wantPongs)
		}
	}
	step(2, "1", 2, "echo")  // 3 → 0 tokens
	step(1, "2", 2, "error") // -1: the ping unanswered; -2: rate_limited
	clock.advance(time.Minute)
	step(1, "3", 3, "echo") // refilled to 4: 3, 2
	if s.ws.Conns() != 1 {
		t.Fatal("the connection was closed")
	}
}

// TestPongFloodCloses: unsolicited pongs take tokens too, and a flood of
// them closes the connection with 1008.
func TestPongFloodCloses(t *testing.T) {
	var clock manualClock
	s := newTestServerClock(t, Limits{}, clock.now)
	c := s.hello(t, "p1")
	writeControls(c, websocket.PongMessage, 3*DefaultMsgBurst)
	expectClose(t, c, websocket.ClosePolicyViolation, testCloses.Flood)
	s.waitClosed(t, 1)
	if v := s.m.limited.get(); v != 1 {
		t.Fatalf("rate limited connections counted %d, want 1", v)
	}
}

// TestCloseFrameCounts: a close frame takes a token as well. Within the
// budget it is answered with its own code; as the frame that floods the
// budget it is answered with 1008.
func TestCloseFrameCounts(t *testing.T) {
	var clock manualClock
	s := newTestServerClock(t, Limits{MsgRate: 1, MsgBurst: 2}, clock.now)
	for _, tc := range []struct {
		pings    int
		wantCode int
	}{
		{0, websocket.CloseNormalClosure},   // hello 1, close 0
		{2, websocket.ClosePolicyViolation}, // hello 1, pings 0 and -1, close -2: the flood
	} {
		name := fmt.Sprintf("p%d", tc.pings)
		c := s.hello(t, name)
		pongs := countPongs(c)
		if n := writeControls(c, websocket.PingMessage, tc.pings); n != tc.pings {
			t.Fatalf("%s: %d of %d pings sent", name, n, tc.pings)
		}
		msg := websocket.FormatCloseMessage(websocket.CloseNormalClosure, "bye")
		if err := c.WriteControl(websocket.CloseMessage, msg, time.Now().Add(ioWait)); err != nil {
			t.Fatalf("%s: close: %v", name, err)
		}
		ce, _ := readClose(t, c)
		if ce.Code != tc.wantCode {
			t.Fatalf("after %d pings and a close frame: answered with %d %q, want %d", tc.pings, ce.Code, ce.Text, tc.wantCode)
		}
		if want := min(int64(tc.pings), 1); pongs.Load() != want {
			t.Fatalf("%s: %d pongs, want %d", name, pongs.Load(), want)
		}
		s.waitClosed(t, 1)
	}
}
