package api_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"klondike/api/apitest"
	"klondike/api/protocol"
	"klondike/api/servertest"
	"klondike/lobby"
	"klondike/lobby/memstore"
	"klondike/match"
)

// lobbyServer runs the real server wiring with the lobby settings of cfg
// on a loopback port.
func lobbyServer(t *testing.T, cfg servertest.Config) string {
	t.Helper()
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	srv := servertest.New(cfg)
	hs := httptest.NewServer(srv)
	t.Cleanup(func() {
		srv.Close()
		hs.Close()
	})
	return hs.URL
}

// TestJoinAfterLeave: joining a match you left once it had started is
// refused with bad_request, and does not seat you; leaving an open match
// and joining it again seats you.
func TestJoinAfterLeave(t *testing.T) {
	_, base := testServer(t)
	a, b := apitest.Dial(t, base), apitest.Dial(t, base)
	a.Hello("alice")
	b.Hello("bob")
	id := apitest.Request[protocol.Match](a, protocol.CreateMatch{Type: protocol.TypeCreateMatch, Settings: protocol.PartialSettings{CountdownS: new(0)}}).Match.ID
	for i, typ := range []string{protocol.TypeJoinMatch, protocol.TypeLeaveMatch, protocol.TypeJoinMatch, protocol.TypeLeaveMatch, protocol.TypeJoinMatch} {
		if r := b.Reply(protocol.MatchRef{Type: typ, MatchID: id}); r.Type != protocol.TypeMatch {
			t.Fatalf("%s (%d) in an open match = %s", typ, i+1, r)
		}
	}
	apitest.Request[protocol.Match](a, protocol.MatchRef{Type: protocol.TypeStartMatch, MatchID: id})
	apitest.Expect[protocol.RoundStarted](b)
	apitest.Request[protocol.Match](b, protocol.MatchRef{Type: protocol.TypeLeaveMatch, MatchID: id})
	r := apitest.Decode[protocol.Error](t, b.Reply(protocol.MatchRef{Type: protocol.TypeJoinMatch, MatchID: id}))
	if r.Type != protocol.TypeError || r.Code != protocol.CodeBadRequest || r.Message != match.ErrLeft.Error() {
		t.Fatalf("join_match after leaving the started match = %+v, want bad_request %q", r, match.ErrLeft)
	}
	// Spectating a match you play in changes nothing and answers the match.
	info := apitest.Request[protocol.Match](a, protocol.MatchRef{Type: protocol.TypeSpectate, MatchID: id}).Match
	for _, p := range info.Players {
		if p.PlayerID == b.PlayerID {
			t.Fatalf("bob is seated again after his refused join: %+v", info)
		}
	}
}

// failingEpoch is a Coord whose data epoch cannot be read while down is set.
type failingEpoch struct {
	lobby.Coord
	down atomic.Bool
}

func (c *failingEpoch) DataEpoch(ctx context.Context) (string, error) {
	if c.down.Load() {
		return "", fmt.Errorf("%w: the store is down (test)", match.ErrUnavailable)
	}
	return c.Coord.DataEpoch(ctx)
}

// TestReadyOnceTheDataEpochIsRead: until the server has read the store's
// data epoch, /readyz answers 503 and creating a match is unavailable;
// once the store answers, both work.
func TestReadyOnceTheDataEpochIsRead(t *testing.T) {
	co := &failingEpoch{Coord: memstore.NewCoord()}
	co.down.Store(true)
	base := lobbyServer(t, servertest.Config{Coord: co})
	readyz := func() int {
		resp, err := http.Get(base + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := readyz(); code != http.StatusServiceUnavailable {
		t.Fatalf("/readyz before the data epoch is read = %d, want 503", code)
	}
	c := apitest.Dial(t, base)
	c.Hello("alice")
	createMatch := protocol.CreateMatch{Type: protocol.TypeCreateMatch}
	if e := apitest.Request[protocol.Error](c, createMatch); e.Code != protocol.CodeUnavailable {
		t.Fatalf("create_match before the data epoch is read = %+v, want unavailable", e)
	}
	co.down.Store(false)
	deadline := time.Now().Add(10 * time.Second)
	for readyz() != http.StatusOK {
		if time.Now().After(deadline) {
			t.Fatal("/readyz not 200 within 10 s of the store answering")
		}
		time.Sleep(20 * time.Millisecond)
	}
	apitest.Request[protocol.Match](c, createMatch)
}

// TestOpenMatchCapsOverWebSocket: over the cap per address a new open
// match is rate_limited, over the node's cap unavailable, each with its
// message.
func TestOpenMatchCapsOverWebSocket(t *testing.T) {
	for _, tc := range []struct {
		cfg           servertest.Config
		code, message string
	}{
		{servertest.Config{MaxOpenMatchesPerIP: 1}, protocol.CodeRateLimited, "too many open matches from your address: start or leave one first"},
		{servertest.Config{MaxOpenMatches: 1, MaxOpenMatchesPerIP: -1}, protocol.CodeUnavailable, "the server has too many open matches; try again later"},
	} {
		base := lobbyServer(t, tc.cfg)
		a, b := apitest.Dial(t, base), apitest.Dial(t, base)
		a.Hello("alice")
		b.Hello("bob")
		createMatch := protocol.CreateMatch{Type: protocol.TypeCreateMatch}
		code := apitest.Request[protocol.Match](a, createMatch).Match.Code
		if r := apitest.Request[protocol.Error](b, createMatch); r.Code != tc.code || r.Message != tc.message {
			t.Fatalf("create_match over the cap = %+v, want %s %q", r, tc.code, tc.message)
		}
		// Joining the open match is not making one.
		apitest.Request[protocol.Match](b, protocol.MatchRef{Type: protocol.TypeJoinMatch, Code: code})
	}
}

// TestNewSessionsLimitOverWebSocket: an address that started its budget
// of sessions gets rate_limited for a new one; resuming with a token still
// works.
func TestNewSessionsLimitOverWebSocket(t *testing.T) {
	base := lobbyServer(t, servertest.Config{NewSessionsPerMinute: 2})
	first := apitest.Dial(t, base)
	first.Hello("p1")
	apitest.Dial(t, base).Hello("p2")
	c := apitest.Dial(t, base)
	if r := apitest.Request[protocol.Error](c, protocol.Hello{Type: protocol.TypeHello, Name: "p3"}); r.Code != protocol.CodeRateLimited ||
		r.Message != "too many new players from your address; try again in a minute" {
		t.Fatalf("a third new session from one address = %+v, want rate_limited", r)
	}
	if w := c.Resume(first.Token); w.PlayerID != first.PlayerID || !w.Resumed {
		t.Fatalf("resume at the limit = %+v, want %s resumed", w, first.PlayerID)
	}
}
