package api

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"klondike/api/protocol"
	"klondike/api/ws/wstest"
	"klondike/match"
)

// ioWait bounds every wait of these tests for something that should come
// at once.
const ioWait = 5 * time.Second

// startService serves a Server on the memory backends with lim, and
// returns it and its WebSocket URL.
func startService(t *testing.T, lim Limits) (*Server, string) {
	t.Helper()
	srv := NewTestServer(TestConfig{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Limits: lim})
	ts := httptest.NewServer(srv)
	t.Cleanup(func() {
		srv.Close()
		ts.Close()
	})
	return srv, "ws" + strings.TrimPrefix(ts.URL, "http") + "/ws"
}

func dial(t *testing.T, url string) *websocket.Conn {
	t.Helper()
	d := websocket.Dialer{HandshakeTimeout: ioWait}
	c, _, err := d.Dial(url, nil)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// hello dials and says hello as name, or with token when it is not empty,
// and returns the connection and the welcome.
func hello(t *testing.T, url, name, token string) (*websocket.Conn, map[string]any) {
	t.Helper()
	c := dial(t, url)
	msg, _ := json.Marshal(protocol.Hello{Type: protocol.TypeHello, ID: "h", Name: name, Token: token})
	send(t, c, string(msg))
	m := recv(t, c)
	if m["type"] != "welcome" {
		t.Fatalf("hello: got %v", m)
	}
	return c, m
}

var (
	send = wstest.Send
	recv = wstest.Recv
)

// expectClose reads until the connection ends and fails unless it was
// closed with code and reason.
func expectClose(t *testing.T, c *websocket.Conn, code int, reason string) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(ioWait))
	for range 1000 {
		if _, _, err := c.ReadMessage(); err != nil {
			var ce *websocket.CloseError
			if !errors.As(err, &ce) || ce.Code != code || ce.Text != reason {
				t.Fatalf("connection ended with %v, want close %d %q", err, code, reason)
			}
			return
		}
	}
	t.Fatal("no close after 1000 messages")
}

// TestHelloFirst: every message but hello waits for hello, an unknown
// type included; after it, hello is refused and an unknown type is a bad
// request; none of them closes the connection.
func TestHelloFirst(t *testing.T) {
	_, url := startService(t, Limits{})
	c := dial(t, url)
	for _, typ := range []string{protocol.TypeListMatches, protocol.TypeMove, "nope"} {
		send(t, c, `{"type":"`+typ+`","id":"`+typ+`"}`)
		if m := recv(t, c); m["type"] != "error" || m["code"] != protocol.CodeUnauthorized || m["re"] != typ || m["message"] != "say hello first" {
			t.Fatalf("%s before hello: got %v, want unauthorized", typ, m)
		}
	}
	send(t, c, `{"type":"hello","id":"h1","name":"alice"}`)
	if m := recv(t, c); m["type"] != "welcome" || m["re"] != "h1" {
		t.Fatalf("hello: got %v", m)
	}
	for _, tc := range []struct{ frame, re, message string }{
		{`{"type":"hello","id":"h2","name":"bob"}`, "h2", "hello was already said on this connection"},
		{`{"type":"nope","id":"n"}`, "n", `unknown message type "nope"`},
	} {
		send(t, c, tc.frame)
		if m := recv(t, c); m["type"] != "error" || m["code"] != protocol.CodeBadRequest || m["re"] != tc.re || m["message"] != tc.message {
			t.Fatalf("%s: got %v, want bad_request %q", tc.frame, m, tc.message)
		}
	}
	send(t, c, `{"type":"list_matches","id":"last"}`)
	if m := recv(t, c); m["type"] != "matches" || m["re"] != "last" {
		t.Fatalf("list_matches: got %v", m)
	}
}

// TestHandlersAnswerTheirType: every type of the message table is
// answered by its own handler, not as an unknown type.
func TestHandlersAnswerTheirType(t *testing.T) {
	_, url := startService(t, Limits{MsgRate: -1})
	c, _ := hello(t, url, "alice", "")
	for typ := range handlers {
		if typ == protocol.TypeHello {
			continue
		}
		// Fields of the wrong type: each handler decodes its own, and
		// says so; a handler that decodes none answers anyway.
		send(t, c, `{"type":"`+typ+`","id":"t"}`)
		for {
			m := recv(t, c)
			if m["re"] != "t" {
				continue // a match's event
			}
			if msg, _ := m["message"].(string); strings.HasPrefix(msg, "unknown message type") {
				t.Errorf("%s: %v", typ, m)
			}
			break
		}
	}
}

// TestBadMessagesKeepTheConnection: a frame that is not a message, or not
// one the service reads, gets bad_request (naming its id when one could be
// read), and the connection goes on.
func TestBadMessagesKeepTheConnection(t *testing.T) {
	_, url := startService(t, Limits{})
	c, _ := hello(t, url, "p1", "")
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
		{`{"type":"join_match","id":"a4","match_id":7}`, "a4"},
	} {
		send(t, c, tc.frame)
		m := recv(t, c)
		re, _ := m["re"].(string)
		if m["type"] != "error" || m["code"] != "bad_request" || re != tc.re || m["message"] == "" {
			t.Errorf("%s: got %v", tc.frame, m)
		}
	}
	c.SetWriteDeadline(time.Now().Add(ioWait))
	if err := c.WriteMessage(websocket.BinaryMessage, []byte(`{"type":"list_matches"}`)); err != nil {
		t.Fatal(err)
	}
	if m := recv(t, c); m["code"] != "bad_request" || m["message"] != "binary frames are not supported; send JSON text" {
		t.Fatalf("binary frame: got %v", m)
	}
	send(t, c, `{"type":"list_matches","id":"last"}`)
	if m := recv(t, c); m["type"] != "matches" || m["re"] != "last" {
		t.Fatalf("after bad messages: got %v", m)
	}
}

// TestRateLimitedNamesTheMessage: a message over the rate gets
// rate_limited with its id, so that the client knows what to resend, and
// the connection stays open.
func TestRateLimitedNamesTheMessage(t *testing.T) {
	srv, url := startService(t, Limits{MsgRate: 0.01, MsgBurst: 2})
	c, _ := hello(t, url, "p1", "") // one token
	send(t, c, `{"type":"list_matches","id":"a"}`)
	if m := recv(t, c); m["type"] != "matches" {
		t.Fatalf("within the budget: got %v", m)
	}
	send(t, c, `{"type":"list_matches","id":"b"}`)
	if m := recv(t, c); m["type"] != "error" || m["code"] != protocol.CodeRateLimited || m["re"] != "b" {
		t.Fatalf("over the budget: got %v, want rate_limited for b", m)
	}
	if v := testutil.ToFloat64(srv.Metrics.RateLimited); v != 1 {
		t.Fatalf("klondike_rate_limited_total = %v, want 1", v)
	}
	if srv.WS.Conns() != 1 {
		t.Fatal("the connection was closed")
	}
}

// TestHubSeveralConnections: a player may be connected several times at
// once; the hub sends to the newest connection, the one that plays; past
// MaxConnsPerPlayer the oldest is closed with CloseReplaced; the player is
// connected while one of its connections plays.
func TestHubSeveralConnections(t *testing.T) {
	srv, url := startService(t, Limits{})
	first, welcome := hello(t, url, "p1", "")
	pid, token := welcome["player_id"].(string), welcome["token"].(string)
	if welcome["tag"] != "#"+strings.ToUpper(pid[:4]) {
		t.Errorf("welcome's tag = %v, want # and the id's first four, upper-case", welcome["tag"])
	}
	oldConn := srv.Hub.conn(pid)
	second, again := hello(t, url, "", token)
	if again["player_id"] != pid || again["name"] != "p1" {
		t.Fatalf("hello with the token: %v, want player %s named p1", again, pid)
	}
	hub := srv.Hub
	if !hub.Connected(pid) || hub.Players() != 1 || connsOf(hub, pid) != 2 {
		t.Fatalf("Connected(%s) = %v, Players() = %d, %d connections; want true, 1, 2", pid, hub.Connected(pid), hub.Players(), connsOf(hub, pid))
	}
	hub.Send([]string{"nobody", pid}, match.MatchOver{MatchID: "pushed"})
	if m := recv(t, second); m["type"] != protocol.TypeMatchOver || m["match_id"] != "pushed" {
		t.Fatalf("got %v", m)
	}
	// The older connection is open and got nothing: it answers a request,
	// and the answer is the first thing it reads.
	if err := first.WriteJSON(map[string]any{"type": protocol.TypeGetRecords, "id": "r"}); err != nil {
		t.Fatal(err)
	}
	if m := recv(t, first); m["type"] != protocol.TypeRecords || m["re"] != "r" {
		t.Fatalf("the older connection read %v, want the reply to its own request", m)
	}
	if hub.Detach(pid, oldConn) || !hub.Connected(pid) {
		t.Fatal("the connection that does not play took the player's play with it")
	}
	var more []*websocket.Conn
	for range MaxConnsPerPlayer {
		c, _ := hello(t, url, "", token)
		more = append(more, c)
	}
	expectClose(t, second, protocol.CloseReplaced, protocol.ReasonReplaced)
	if n := connsOf(hub, pid); n != MaxConnsPerPlayer {
		t.Fatalf("%d connections kept, want %d", n, MaxConnsPerPlayer)
	}
	if v := testutil.ToFloat64(srv.Metrics.Players); v != 1 {
		t.Fatalf("klondike_connected_players = %v", v)
	}
	_ = more
}

// connsOf is how many connections the hub keeps of the player.
func connsOf(h *Hub, pid string) int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.players[pid].conns)
}

// TestHubKeepsPaces: a player's pace is kept whether or not they are
// connected, and is their connection's only while it is theirs.
func TestHubKeepsPaces(t *testing.T) {
	srv, url := startService(t, Limits{})
	hub := srv.Hub
	_, welcome := hello(t, url, "p1", "")
	pid := welcome["player_id"].(string)
	c := hub.conn(pid)
	// Paces the hub only keeps, never calls.
	p1, p2 := new(match.LeaderboardPace), new(match.LeaderboardPace)
	hub.SetPace(pid, p1)
	hub.SetPace("offline", p2)
	if hub.pace(pid, c) != p1 || hub.pace("offline", c) != nil {
		t.Fatal("a pace is not its player's connection's")
	}
	if hub.Players() != 1 {
		t.Fatalf("Players() = %d with one player connected and another's pace kept, want 1", hub.Players())
	}
	hub.ClearPace(pid, p2) // not theirs: nothing happens
	if hub.pace(pid, c) != p1 {
		t.Fatal("ClearPace of another pace cleared the player's")
	}
	hub.ClearPace(pid, p1)
	hub.ClearPace("offline", p2)
	if hub.pace(pid, c) != nil || len(hub.players) != 1 {
		t.Fatalf("after ClearPace: %d players known, want the connected one only", len(hub.players))
	}
	if hub.Detach(pid, c); len(hub.players) != 0 || hub.Players() != 0 {
		t.Fatalf("after Detach: %d players known, %d connected; want none", len(hub.players), hub.Players())
	}
}
