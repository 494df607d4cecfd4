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

	"klondike/api"
	"klondike/lobby"
	"klondike/match"
	"klondike/match/memstore"
)

// lobbyServer runs the real server wiring with the lobby settings of cfg
// on a loopback port.
func lobbyServer(t *testing.T, cfg api.Config) string {
	t.Helper()
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	srv := api.NewServer(cfg)
	hs := httptest.NewServer(srv)
	t.Cleanup(func() {
		srv.Close()
		hs.Close()
	})
	return hs.URL
}

// reply sends v and returns the reply to it (whatever its type), keeping
// the pushes read meanwhile.
func (c *client) reply(v map[string]any) map[string]any {
	c.t.Helper()
	id := c.send(v)
	for i, m := range c.pending {
		if m["re"] == id {
			c.pending = append(c.pending[:i], c.pending[i+1:]...)
			return m
		}
	}
	deadline := time.After(10 * time.Second)
	for {
		select {
		case m, ok := <-c.in:
			if !ok {
				c.t.Fatalf("connection closed while waiting for the reply to %v", v)
			}
			if m["re"] == id {
				return m
			}
			c.pending = append(c.pending, m)
		case <-deadline:
			c.t.Fatalf("no reply to %v within 10 s", v)
		}
	}
}

// TestJoinAfterLeave: joining a match you left once it had started is
// refused with bad_request, and does not seat you; leaving an open match
// and joining it again seats you.
func TestJoinAfterLeave(t *testing.T) {
	_, base := testServer(t)
	a, b := dial(t, base), dial(t, base)
	a.hello("alice")
	b.hello("bob")
	id := a.reply(map[string]any{"type": "create_match", "settings": map[string]any{"countdown_s": 0}})["match"].(map[string]any)["id"].(string)
	for i, typ := range []string{"join_match", "leave_match", "join_match", "leave_match", "join_match"} {
		if r := b.reply(map[string]any{"type": typ, "match_id": id}); r["type"] != "match" {
			t.Fatalf("%s (%d) in an open match = %v", typ, i+1, r)
		}
	}
	if r := a.reply(map[string]any{"type": "start_match", "match_id": id}); r["type"] != "match" {
		t.Fatalf("start_match = %v", r)
	}
	b.expect("round_started")
	if r := b.reply(map[string]any{"type": "leave_match", "match_id": id}); r["type"] != "match" {
		t.Fatalf("leave_match in the started match = %v", r)
	}
	r := b.reply(map[string]any{"type": "join_match", "match_id": id})
	if r["type"] != "error" || r["code"] != api.CodeBadRequest || r["message"] != match.ErrLeft.Error() {
		t.Fatalf("join_match after leaving the started match = %v, want bad_request %q", r, match.ErrLeft)
	}
	// Spectating a match you play in changes nothing and answers the match.
	info := a.reply(map[string]any{"type": "spectate", "match_id": id})["match"].(map[string]any)
	for _, p := range info["players"].([]any) {
		if p.(map[string]any)["player_id"] == b.id {
			t.Fatalf("bob is seated again after his refused join: %v", info)
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
	base := lobbyServer(t, api.Config{Coord: co})
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
	c := dial(t, base)
	c.hello("alice")
	c.send(map[string]any{"type": "create_match"})
	if e := c.expect("error"); e["code"] != api.CodeUnavailable {
		t.Fatalf("create_match before the data epoch is read = %v, want unavailable", e)
	}
	co.down.Store(false)
	deadline := time.Now().Add(10 * time.Second)
	for readyz() != http.StatusOK {
		if time.Now().After(deadline) {
			t.Fatal("/readyz not 200 within 10 s of the store answering")
		}
		time.Sleep(20 * time.Millisecond)
	}
	c.send(map[string]any{"type": "create_match"})
	c.expect("match")
}

// TestOpenMatchCapsOverWebSocket: over the cap per address a new open
// match is rate_limited, over the node's cap unavailable, each with its
// message.
func TestOpenMatchCapsOverWebSocket(t *testing.T) {
	for _, tc := range []struct {
		cfg           api.Config
		code, message string
	}{
		{api.Config{MaxOpenMatchesPerIP: 1}, api.CodeRateLimited, "too many open matches from your address: start or leave one first"},
		{api.Config{MaxOpenMatches: 1, MaxOpenMatchesPerIP: -1}, api.CodeUnavailable, "the server has too many open matches; try again later"},
	} {
		base := lobbyServer(t, tc.cfg)
		a, b := dial(t, base), dial(t, base)
		a.hello("alice")
		b.hello("bob")
		code := a.reply(map[string]any{"type": "create_match"})["match"].(map[string]any)["code"]
		if r := b.reply(map[string]any{"type": "create_match"}); r["code"] != tc.code || r["message"] != tc.message {
			t.Fatalf("create_match over the cap = %v, want %s %q", r, tc.code, tc.message)
		}
		// Joining the open match is not making one.
		if r := b.reply(map[string]any{"type": "join_match", "code": code}); r["type"] != "match" {
			t.Fatalf("join_match at the cap = %v", r)
		}
	}
}

// TestNewSessionsLimitOverWebSocket: an address that started its budget
// of sessions gets rate_limited for a new one; resuming with a token still
// works.
func TestNewSessionsLimitOverWebSocket(t *testing.T) {
	base := lobbyServer(t, api.Config{NewSessionsPerMinute: 2})
	first := dial(t, base)
	first.hello("p1")
	dial(t, base).hello("p2")
	c := dial(t, base)
	if r := c.reply(map[string]any{"type": "hello", "name": "p3"}); r["code"] != api.CodeRateLimited ||
		r["message"] != "too many new players from your address; try again in a minute" {
		t.Fatalf("a third new session from one address = %v, want rate_limited", r)
	}
	if w := c.reply(map[string]any{"type": "hello", "token": first.token}); w["player_id"] != first.id || w["resumed"] != true {
		t.Fatalf("resume at the limit = %v, want %s resumed", w, first.id)
	}
}
