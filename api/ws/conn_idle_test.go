package ws

import (
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gorilla/websocket"

	"klondike/api/ws/wstest"
)

// newPipeServer is newTestServer on an in-memory network, for a test
// inside a synctest bubble: the server's timers (pings, deadlines) run on
// the bubble's clock.
func newPipeServer(t *testing.T, lim Limits) *testServer {
	t.Helper()
	ws, h, m := newFakeWSServer(t, lim)
	l := wstest.NewPipeListener()
	hs := &http.Server{Handler: ws}
	served := make(chan struct{})
	go func() {
		defer close(served)
		hs.Serve(l)
	}()
	t.Cleanup(func() {
		shutdownWS(t, ws)
		hs.Close()
		<-served
	})
	return &testServer{ws: ws, h: h, m: m, url: "ws://pipe/ws", netDial: l.Dial}
}

// bubbleGoroutines checks that the connections' goroutines in the bubble
// are readers and writers, once every goroutine of the bubble is blocked.
func bubbleGoroutines(t *testing.T, readers, writers int) {
	t.Helper()
	synctest.Wait()
	if r, w := countConnGoroutines(true); r != readers || w != writers {
		t.Fatalf("%d readers and %d writers, want %d and %d", r, w, readers, writers)
	}
}

// TestIdleConnectionOneGoroutine checks that an idle connection is one
// goroutine, its reader: the writer runs only while there is something to
// write (messages or a ping) and then ends, and a connection that keeps
// answering pings stays open. It runs in a synctest bubble: the pings come
// on the bubble's clock, whatever the machine's load.
func TestIdleConnectionOneGoroutine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const n = 10
		start := time.Now()
		lim := Limits{PongWait: 2 * time.Second}
		period := lim.PingPeriod()
		s := newPipeServer(t, lim)
		var clients []*websocket.Conn
		for i := range n {
			clients = append(clients, s.hello(t, fmt.Sprintf("p%d", i)))
		}
		// Replies start a writer; it ends when they are written.
		for i, c := range clients {
			send(t, c, fmt.Sprintf(`{"type":"x","id":"%d"}`, i))
			if m := recv(t, c); m["re"] != fmt.Sprint(i) {
				t.Fatalf("got %v", m)
			}
		}
		bubbleGoroutines(t, n, 0)
		if d := time.Since(start); d != 0 {
			t.Fatalf("the connections took %v of the bubble's clock, want none", d)
		}
		// From now on the clients only read, and answer each ping with a
		// pong. The connections were made at the bubble's start: each
		// gets a ping at every multiple of the period.
		const periods = 5
		window := periods*period + period/2
		pings := make([]atomic.Int64, n)
		ended := make(chan error, n)
		for i, c := range clients {
			c.SetReadDeadline(time.Now().Add(window + ioWait))
			c.SetPingHandler(func(data string) error {
				pings[i].Add(1)
				return c.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(ioWait))
			})
			go func() {
				for {
					if _, _, err := c.ReadMessage(); err != nil {
						ended <- err
						return
					}
				}
			}()
		}
		// Long past PongWait: a connection whose pings stopped, or whose
		// pongs did not give it more time, has been dropped by now.
		time.Sleep(window)
		synctest.Wait()
		select {
		case err := <-ended:
			t.Fatalf("a client that answered pings lost its connection: %v", err)
		default:
		}
		if got := s.ws.Conns(); got != n {
			t.Fatalf("%d connections open, want %d: a client that answered pings was dropped", got, n)
		}
		for i := range pings {
			if got := pings[i].Load(); got != periods {
				t.Errorf("client %d got %d pings in %d ping periods, want %d", i, got, periods, periods)
			}
		}
		bubbleGoroutines(t, n, 0)
	})
}
