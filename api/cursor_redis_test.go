package api_test

import (
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"testing"

	"klondike/api"
	"klondike/api/apitest"
	"klondike/api/protocol"
	"klondike/api/servertest"
	"klondike/lobby/redisstore"
	"klondike/lobby/redisstore/redistest"
)

// redisNode runs the real server wiring on every Redis backend of one
// test redis-server.
func redisNode(t *testing.T) string {
	t.Helper()
	c := redistest.Start(t).Client(t)
	cfg := redisstore.Config{Prefix: redistest.Prefix(t)}
	ch := redisstore.NewChallenges(c, cfg.Prefix)
	srv := servertest.New(servertest.Config{
		Store: redisstore.New(c, cfg), Coord: redisstore.NewCoord(c, cfg), Players: redisstore.NewPlayers(c, cfg.Prefix),
		Challenges: ch, Records: ch, Allowances: redisstore.NewAllowances(c, cfg.Prefix),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Limits: api.Limits{MsgRate: 10000, MsgBurst: 10000},
	})
	hs := httptest.NewServer(srv)
	t.Cleanup(func() { srv.Close(); hs.Close() })
	return hs.URL
}

// TestPageCursorsFarPastTheEndOnRedis: on Redis, a leaderboard or replay
// page whose from is far past the end, up to the largest rank a request
// can name, is an empty page (200), as on the memory store, not a 503
// unavailable.
func TestPageCursorsFarPastTheEndOnRedis(t *testing.T) {
	t.Parallel()
	base := redisNode(t)
	alice := apitest.Dial(t, base)
	alice.Hello("alice")
	made := apitest.Request[protocol.AsyncRound](alice, protocol.CreateChallenge{Type: protocol.TypeCreateChallenge, WindowS: 3600})
	id := made.Round.RoundID
	st := apitest.Request[protocol.RoundStarted](alice, protocol.RoundRef{Type: protocol.TypeStartAttempt, RoundID: id})
	if f := alice.Move(st.RoundID, 1, "D"); f.Type != protocol.TypeMoveOK {
		t.Fatalf("alice's move: %s", f)
	}
	apitest.Request[protocol.Resigned](alice, protocol.Resign{Type: protocol.TypeResign, RoundID: st.RoundID})
	apitest.Expect[protocol.AttemptOver](alice)
	apitest.Request[protocol.AsyncRound](alice, protocol.RoundRef{Type: protocol.TypeCloseChallenge, RoundID: id})

	// One struct for both routes' pages: the leaderboard's entries, the
	// replay's players (the leaderboard's "players" is a count).
	type page struct {
		Entries []protocol.BoardEntry `json:"entries"`
		Players any                   `json:"players"`
	}
	first := fetch[page](t, base+"/api/v1/rounds/"+id+"/leaderboard")
	if len(first.Entries) != 1 {
		t.Fatalf("the leaderboard's first page: %+v, want alice's entry", first)
	}
	for _, from := range []string{"2", "100000000000000000", fmt.Sprint(1 << 62), fmt.Sprint(math.MaxInt64 - 100), fmt.Sprint(math.MaxInt64)} {
		for _, route := range []string{"leaderboard", "replay"} {
			url := base + "/api/v1/rounds/" + id + "/" + route + "?from=" + from
			res, err := http.Get(url)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != http.StatusOK {
				t.Errorf("GET %s?from=%s: %s, want 200", route, from, res.Status)
				continue
			}
			p := fetch[page](t, url)
			if players, _ := p.Players.([]any); len(p.Entries) != 0 || len(players) != 0 {
				t.Errorf("GET %s?from=%s: %+v, want an empty page", route, from, p)
			}
		}
	}
}
