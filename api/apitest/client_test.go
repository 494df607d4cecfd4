package apitest_test

import (
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"klondike/api"
	"klondike/api/apitest"
	"klondike/api/protocol"
	"klondike/api/servertest"
	"klondike/lobby/memstore"
)

// server runs the real server wiring on a loopback port.
func server(t *testing.T) (*api.Server, string) {
	t.Helper()
	mem := memstore.NewBackends()
	srv := servertest.New(servertest.Config{Store: mem.Store, Players: mem.Players, Coord: mem.Coord, Challenges: mem.Challenges, Records: mem.Challenges, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	hs := httptest.NewServer(srv)
	t.Cleanup(func() {
		srv.Close()
		hs.Close()
	})
	return srv, hs.URL
}

// TestClient: hello fills in the session; a request gets its own reply
// whatever came first; pushes read while waiting for a reply are kept for
// the next waits; every frame is recorded; the server's close ends the
// connection with its code.
func TestClient(t *testing.T) {
	srv, base := server(t)
	a, b := apitest.Dial(t, base), apitest.Dial(t, base)
	if w := a.Hello("alice"); a.PlayerID == "" || a.Token == "" || w.PlayerID != a.PlayerID || w.Name != "alice" {
		t.Fatalf("Hello = %+v; client %q %q", w, a.PlayerID, a.Token)
	}
	b.Hello("bob")
	info := apitest.Request[protocol.Match](a, protocol.CreateMatch{Type: protocol.TypeCreateMatch,
		Settings: protocol.PartialSettings{MaxPlayers: new(2)}}).Match
	apitest.Request[protocol.Match](b, protocol.MatchRef{Type: protocol.TypeJoinMatch, Code: info.Code})

	// The pushes of the match (its creation, bob's join), read before this
	// reply or after it, are there for the next waits.
	e := apitest.Request[protocol.Error](a, map[string]any{"type": "nonsense"})
	if e.Code != protocol.CodeBadRequest || e.Re == "" {
		t.Fatalf("an unknown message = %+v, want bad_request with its re", e)
	}
	push := apitest.Expect[protocol.Match](a)
	for i := 0; i < 3 && len(push.Match.Players) < 2; i++ {
		push = apitest.Expect[protocol.Match](a)
	}
	if push.Re != "" || len(push.Match.Players) != 2 {
		t.Fatalf("the push of the join = %+v, want the match with two players and no re", push)
	}
	if id := a.Send(protocol.ListMatches{Type: protocol.TypeListMatches, ID: "mine"}); id != "mine" {
		t.Fatalf("Send kept id %q, want mine", id)
	}
	if f := a.Next(protocol.TypeMatches); f.Re != "mine" {
		t.Fatalf("matches = %s, want re mine", f)
	}
	var types []string
	for _, f := range a.Frames() {
		types = append(types, f.Type)
	}
	if len(types) < 4 || types[0] != protocol.TypeWelcome || types[len(types)-1] != protocol.TypeMatches || !slices.Contains(types, protocol.TypeError) {
		t.Fatalf("alice's frames are of the types %q, want welcome first, an error, and matches last", types)
	}

	srv.Close()
	if err := a.WaitClosed(); !websocket.IsCloseError(err, websocket.CloseServiceRestart) {
		t.Fatalf("after the server's Close: %v, want close 1012", err)
	}
}

// fatalTB records a Fatalf and ends the goroutine, as testing's does.
type fatalTB struct {
	testing.TB
	msg string
}

func (f *fatalTB) Helper() {}

func (f *fatalTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// fails runs wait as a test would, and returns what it failed with.
func fails(t *testing.T, tb *fatalTB, wait func()) string {
	t.Helper()
	tb.msg = ""
	done := make(chan struct{})
	go func() {
		defer close(done)
		wait()
	}()
	select {
	case <-done:
	case <-time.After(apitest.DefaultTimeout):
		t.Fatal("the wait did not end")
	}
	return tb.msg
}

// TestClientFails: a wait fails on an error it does not wait for, on its
// timeout, and on the end of the connection.
func TestClientFails(t *testing.T) {
	_, base := server(t)
	tb := &fatalTB{TB: t}
	c := apitest.Dial(tb, base)
	c.Timeout = 50 * time.Millisecond
	c.Send(protocol.ListMatches{Type: protocol.TypeListMatches}) // before hello
	if msg := fails(t, tb, func() { c.Next(protocol.TypeMatches) }); !strings.Contains(msg, `"code":"unauthorized"`) {
		t.Errorf("an error while waiting for matches: %q", msg)
	}
	if msg := fails(t, tb, func() { c.Next(protocol.TypeMatches) }); !strings.Contains(msg, "no matches within 50ms") {
		t.Errorf("nothing to wait for: %q", msg)
	}
	c.Close()
	if msg := fails(t, tb, func() { c.Next(protocol.TypeMatches) }); !strings.Contains(msg, "the connection ended") {
		t.Errorf("a closed connection: %q", msg)
	}
}
