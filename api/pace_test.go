package api

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gorilla/websocket"

	"klondike/api/ws/wstest"
	"klondike/engine"
)

// recordingListener records what the server writes on each connection it
// accepts: the types of the messages in each write.
type recordingListener struct {
	net.Listener
	mu    sync.Mutex
	conns []*recordingConn // in the order accepted
}

func (l *recordingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	rc := &recordingConn{Conn: c}
	l.mu.Lock()
	l.conns = append(l.conns, rc)
	l.mu.Unlock()
	return rc, nil
}

func (l *recordingListener) conn(i int) *recordingConn {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.conns[i]
}

// recordingConn notes the types of the messages of each write after the
// handshake's; it expects whole frames in every write, as the writer
// writes them.
type recordingConn struct {
	net.Conn
	mu     sync.Mutex
	shaken bool
	writes [][]string
}

func (c *recordingConn) Write(b []byte) (int, error) {
	c.mu.Lock()
	if c.shaken {
		c.writes = append(c.writes, frameTypes(b))
	}
	c.shaken = true
	c.mu.Unlock()
	return c.Conn.Write(b)
}

func (c *recordingConn) written() [][]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([][]string(nil), c.writes...)
}

// frameTypes returns the type of each text frame's message in b (unmasked
// frames), "" for other frames.
func frameTypes(b []byte) []string {
	var out []string
	for len(b) >= 2 {
		op, n, hdr := b[0]&0x0f, int(b[1]&0x7f), 2
		switch n {
		case 126:
			n, hdr = int(b[2])<<8|int(b[3]), 4
		case 127:
			n, hdr = 0, 10
			for _, x := range b[2:10] {
				n = n<<8 | int(x)
			}
		}
		payload := b[hdr : hdr+n]
		b = b[hdr+n:]
		var h struct{ Type string }
		if op == websocket.TextMessage {
			_ = json.Unmarshal(payload, &h)
		}
		out = append(out, h.Type)
	}
	return out
}

// TestBoardInTheMoveOKsWrite: a move that makes a leaderboard due gets its
// move_ok and the board in one write of the server's, one system call;
// the other player gets the board at once. The server runs in a synctest
// bubble, on an in-memory network, so no tick of the match runs while the
// move is handled.
func TestBoardInTheMoveOKsWrite(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := NewTestServer(TestConfig{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		pl := wstest.NewPipeListener()
		l := &recordingListener{Listener: pl}
		hs := &http.Server{Handler: srv}
		served := make(chan struct{})
		go func() {
			defer close(served)
			hs.Serve(l)
		}()
		defer func() {
			srv.Close()
			hs.Close()
			<-served
		}()
		d := websocket.Dialer{NetDialContext: pl.Dial}
		dial := func(name string) (*websocket.Conn, chan map[string]any) {
			ws, _, err := d.Dial("ws://pipe/ws", nil)
			if err != nil {
				t.Fatal(err)
			}
			in := make(chan map[string]any, 100)
			go func() {
				defer close(in)
				for {
					var m map[string]any
					if err := ws.ReadJSON(&m); err != nil {
						return
					}
					in <- m
				}
			}()
			send(t, ws, `{"type":"hello","name":"`+name+`"}`)
			return ws, in
		}
		next := func(in chan map[string]any, typ string) map[string]any {
			t.Helper()
			for m := range in {
				if m["type"] == typ {
					return m
				}
			}
			t.Fatalf("no %s", typ)
			return nil
		}
		a, ain := dial("alice")
		defer a.Close()
		next(ain, "welcome")
		b, bin := dial("bob")
		defer b.Close()
		next(bin, "welcome")
		send(t, a, `{"type":"create_match","settings":{"seed":"1","countdown_s":0,"max_players":2}}`)
		info := next(ain, "match")["match"].(map[string]any)
		send(t, b, `{"type":"join_match","code":"`+info["code"].(string)+`"}`)
		next(bin, "match")
		send(t, a, `{"type":"start_match","match_id":"`+info["id"].(string)+`"}`)
		roundID := next(ain, "round_started")["round_id"].(string)
		next(bin, "round_started")
		time.Sleep(2 * time.Second) // the round's first boards are out
		synctest.Wait()

		r, err := srv.Lobby.Round(context.Background(), roundID)
		if err != nil {
			t.Fatal(err)
		}
		g, err := engine.NewGame(r.Deal, r.Rules)
		if err != nil {
			t.Fatal(err)
		}
		move := g.LegalMoves(nil)[0]
		before := len(l.conn(0).written())
		for len(bin) > 0 {
			<-bin
		}
		send(t, a, `{"type":"move","id":"m1","round_id":"`+roundID+`","seq":1,"move":"`+move.String()+`"}`)
		synctest.Wait()
		got := l.conn(0).written()[before:]
		if len(got) != 1 || len(got[0]) != 2 || got[0][0] != "move_ok" || got[0][1] != "leaderboard" {
			t.Fatalf("alice's writes after her move: %q; want one: move_ok and leaderboard", got)
		}
		if len(bin) != 1 {
			t.Fatalf("bob got %d messages after alice's move, want the board", len(bin))
		}
		lb := next(bin, "leaderboard")
		for _, e := range lb["entries"].([]any) {
			if e := e.(map[string]any); e["name"] == "alice" && e["moves"] != 1.0 {
				t.Fatalf("alice in bob's board: %v, want her move", e)
			}
		}
	})
}
