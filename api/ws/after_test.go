package ws

import (
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/gorilla/websocket"
)

// writesListener notes, for each connection it accepts, how many text
// frames each write after the handshake's carries.
type writesListener struct {
	net.Listener
	mu     sync.Mutex
	writes [][]int // by connection, in the order accepted
}

func (l *writesListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.writes = append(l.writes, nil)
	return &writesConn{Conn: c, l: l, i: len(l.writes) - 1}, nil
}

func (l *writesListener) of(i int) []int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]int(nil), l.writes[i]...)
}

type writesConn struct {
	net.Conn
	l      *writesListener
	i      int
	shaken bool // the handshake's write is done
}

// Write counts the text frames of b, which holds whole unmasked frames
// (as the writer writes them) once the handshake is done.
func (c *writesConn) Write(b []byte) (int, error) {
	if c.shaken {
		frames := 0
		for p := b; len(p) >= 2; {
			n, hdr := int(p[1]&0x7f), 2
			switch n {
			case 126:
				n, hdr = int(p[2])<<8|int(p[3]), 4
			case 127:
				n, hdr = 0, 10
				for _, x := range p[2:10] {
					n = n<<8 | int(x)
				}
			}
			if p[0]&0x0f == websocket.TextMessage {
				frames++
			}
			p = p[hdr+n:]
		}
		c.l.mu.Lock()
		c.l.writes[c.i] = append(c.l.writes[c.i], frames)
		c.l.mu.Unlock()
	}
	c.shaken = true
	return c.Conn.Write(b)
}

// afterHandler Replies to every message with "reply"; its AfterMessage
// hook Sends "after" to the connection, and panics after a message of
// type "boom".
type afterHandler struct{ closed chan *Conn }

func (h *afterHandler) HandleMessage(c *Conn, msg []byte) {
	c.Reply([]byte(`{"type":"reply"}`))
}

func (h *afterHandler) Closed(c *Conn) { h.closed <- c }

// TestAfterMessageRidesWithTheReply: the AfterMessage hook runs after
// each message, before the read goroutine writes the reply, so that what
// the hook sends leaves in the reply's write, one system call; a hook that
// panics is logged and the connection goes on.
func TestAfterMessageRidesWithTheReply(t *testing.T) {
	h := &afterHandler{closed: make(chan *Conn, 1)}
	var boom sync.Once
	srv := NewServer(h, Config{
		Logger: slog.New(slog.NewTextHandler(t.Output(), nil)),
		AfterMessage: func(c *Conn) {
			c.Send([]byte(`{"type":"after"}`))
			if c.UserID() == "" {
				boom.Do(func() { panic("hook bug") })
			}
		},
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := &writesListener{Listener: ln}
	ts := httptest.NewUnstartedServer(srv)
	ts.Listener = l
	ts.Start()
	t.Cleanup(func() {
		shutdownWS(t, srv)
		ts.Close()
	})
	c, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(ts.URL, "http")+"/ws", http.Header{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for i := range 3 {
		send(t, c, `{"type":"x"}`)
		for _, want := range []string{"reply", "after"} {
			if m := recv(t, c); m["type"] != want {
				t.Fatalf("message %d: got %v, want %s", i, m, want)
			}
		}
	}
	if got := l.of(0); len(got) != 3 || got[0] != 2 || got[1] != 2 || got[2] != 2 {
		t.Fatalf("frames in each write: %v; want 3 writes of 2 (the reply and the hook's message)", got)
	}
}

// TestDetached: a Detached connection hands a message to the Handler and
// runs the AfterMessage hook, as a read goroutine does, and keeps what
// they sent for TakeQueued; it writes nothing, and ends on Close.
func TestDetached(t *testing.T) {
	h := &afterHandler{}
	srv := NewServer(h, Config{
		Logger:       slog.New(slog.NewTextHandler(t.Output(), nil)),
		AfterMessage: func(c *Conn) { c.Send([]byte(`{"type":"after"}`)) },
	})
	c := srv.Detached("192.0.2.1")
	c.SetUserID("u")
	var msgs [][]byte
	for i := range 3 {
		c.Handle([]byte(`{"type":"x"}`))
		msgs = c.TakeQueued(msgs)
		if len(msgs) != 2 || string(msgs[0]) != `{"type":"reply"}` || string(msgs[1]) != `{"type":"after"}` {
			t.Fatalf("message %d: queued %q, want the reply and the hook's message", i, msgs)
		}
	}
	if msgs = c.TakeQueued(msgs); len(msgs) != 0 {
		t.Fatalf("queued %q after TakeQueued, want nothing", msgs)
	}
	if c.RemoteIP() != "192.0.2.1" || c.UserID() != "u" || srv.Conns() != 0 {
		t.Fatalf("RemoteIP %q, UserID %q, Conns %d", c.RemoteIP(), c.UserID(), srv.Conns())
	}
	c.Close(closeTest, "done")
	if c.Context().Err() == nil || c.Send([]byte(`{}`)) {
		t.Fatal("a closed Detached connection still takes messages")
	}
}
