//go:build unix

package ws

import (
	"context"
	"net"
	"runtime"
	rtmetrics "runtime/metrics"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// stallSlack is what the server's live heap may grow beyond the send
// budget while a client stalls: the connection's own buffers and
// goroutines, the test's log lines, and what other tests' ending
// connections still hold.
const stallSlack = 256 << 10

// liveHeap is the live heap, in bytes, after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	s := []rtmetrics.Sample{{Name: "/gc/heap/live:bytes"}}
	rtmetrics.Read(s)
	return s[0].Value.Uint64()
}

// dialStalled connects to s with a receive buffer of rcvbuf bytes, so that
// a client that does not read stalls the server's writes at once.
func (s *testServer) dialStalled(t *testing.T, rcvbuf int) *websocket.Conn {
	t.Helper()
	nd := net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
		var serr error
		if err := rc.Control(func(fd uintptr) {
			serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, rcvbuf)
		}); err != nil {
			return err
		}
		return serr
	}}
	d := websocket.Dialer{HandshakeTimeout: ioWait, NetDialContext: nd.DialContext}
	c, _, err := d.DialContext(context.Background(), s.url, nil)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestNeverReadingClientHeldToBudget: a client with a tiny receive window
// that keeps asking for the largest reply and never reads makes the server
// hold at most SendBudget bytes of messages (measured in the live heap
// while it stalls), and is then closed as a slow consumer.
func TestNeverReadingClientHeldToBudget(t *testing.T) {
	const budget = DefaultSendBudget
	s := newTestServer(t, Limits{SendBudget: budget, MsgRate: -1, CloseWait: ioWait})
	c := s.dialStalled(t, 4<<10)
	send(t, c, `{"type":"hello","id":"h","name":"p1"}`)
	if m := recv(t, c); m["type"] != "welcome" {
		t.Fatalf("hello: got %v", m)
	}
	conn := s.h.conn("p1")
	base := liveHeap()

	// Each request is answered only when the previous answer was queued,
	// so the queue's state is known after each. The kernel's buffers take
	// some replies first; then the writer stalls and the queue fills.
	const maxRequests = 200
	var peak uint64 // the live heap at the queue's fullest, over base
	var peakHeld int64
	refused := false
	for i := 0; i < maxRequests && !refused; i++ {
		send(t, c, `{"type":"big"}`)
		var out bigOutcome
		select {
		case out = <-s.h.big:
		case <-time.After(ioWait):
			t.Fatalf("request %d not answered", i+1)
		}
		if out.held > budget {
			t.Fatalf("request %d: the queue holds %d bytes, over the budget of %d", i+1, out.held, budget)
		}
		if !out.ok {
			refused = true
			break
		}
		if out.held+bigReply > budget {
			// The next reply would go over: the queue is as full as it
			// gets, and the connection still open.
			if h := liveHeap(); h > base && h-base > peak {
				peak, peakHeld = h-base, out.held
			}
		}
	}
	if !refused {
		t.Fatalf("%d requests of %d bytes each never went over the budget of %d", maxRequests, bigReply, budget)
	}
	if peakHeld == 0 {
		t.Fatal("the heap was never measured with the queue at its fullest")
	}
	t.Logf("live heap at the fullest: %d bytes over the baseline with %d bytes held; budget %d", peak, peakHeld, budget)
	if peak > budget+stallSlack {
		t.Errorf("the live heap grew by %d bytes while the client stalled, over the budget of %d plus %d", peak, budget, stallSlack)
	}

	ce, _ := readClose(t, c)
	if ce.Code != testCloses.SlowCode || ce.Text != testCloses.Slow {
		t.Fatalf("closed with %d %q, want %d %q", ce.Code, ce.Text, testCloses.SlowCode, testCloses.Slow)
	}
	s.waitClosed(t, 1)
	if v := s.m.slow.get(); v != 1 {
		t.Fatalf("slow disconnects counted %d, want 1", v)
	}
	if n := conn.send.heldBytes(); n != 0 {
		t.Fatalf("the ended connection holds %d bytes of messages", n)
	}
}
