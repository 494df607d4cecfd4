package api_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"klondike/api"
	"klondike/api/apitest"
	"klondike/api/protocol"
	"klondike/api/servertest"
	"klondike/lobby/redisstore"
	"klondike/lobby/redisstore/redistest"
	"klondike/match"
)

// redisServer runs the real server wiring on the Redis store of a test
// redis-server with AOF on, with short client timeouts and one dial a try
// so an outage shows at once.
func redisServer(t *testing.T) (*redistest.Server, string) {
	t.Helper()
	rs := redistest.Start(t, redistest.WithAOF())
	c := redis.NewClient(&redis.Options{Addr: rs.Addr(), DialTimeout: 300 * time.Millisecond, DialerRetries: 1,
		ReadTimeout: 300 * time.Millisecond, WriteTimeout: 300 * time.Millisecond, MaxRetries: 1})
	t.Cleanup(func() { c.Close() })
	srv := servertest.New(servertest.Config{
		Store:  redisstore.New(c, redisstore.Config{Prefix: redistest.Prefix(t)}),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Limits: api.Limits{MsgRate: 10000, MsgBurst: 10000},
		Match:  match.Config{LeaderboardEvery: 20 * time.Millisecond},
	})
	hs := httptest.NewServer(srv)
	t.Cleanup(func() { srv.Close(); hs.Close() })
	return rs, hs.URL
}

func status(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestRedisOutageAndKill plays a round on the Redis store through a Redis
// outage and a kill -9: while Redis is away moves get the retryable
// unavailable code, the connection stays open and /readyz says 503; when it
// is back the same seq goes through, and at the end the replay holds every
// acknowledged move exactly once.
func TestRedisOutageAndKill(t *testing.T) {
	t.Parallel()
	rs, base := redisServer(t)
	a, b, sa, _ := startRace(t, base, protocol.PartialSettings{Seed: new("1"), Undo: new("on"), CountdownS: new(0), MaxPlayers: new(2)})
	roundID := sa.RoundID
	moves := winningGame(t)
	acked := 0
	play := func(n int) {
		for ; acked < n; acked++ {
			moveOK(t, a, roundID, acked+1, moves[acked])
		}
	}
	play(40)

	rs.Stop()
	ans := a.Move(roundID, acked+1, moves[acked])
	if rej := apitest.Decode[protocol.MoveRejected](t, ans); rej.Type != protocol.TypeMoveRejected || rej.Code != protocol.CodeUnavailable {
		t.Fatalf("move with Redis stopped = %s, want move_rejected unavailable", ans)
	}
	if code := status(t, base+"/readyz"); code != http.StatusServiceUnavailable {
		t.Errorf("/readyz with Redis stopped = %d, want 503", code)
	}
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `klondike_store_errors_total{op="append"}`) {
		t.Errorf("/metrics does not count the failed append")
	}
	rs.Start(t)
	waitReady(t, base)
	play(80) // the refused seq again, then more

	rs.Kill() // kill -9, AOF everysec: acknowledged moves must survive
	rs.Start(t)
	waitReady(t, base)
	play(len(moves))

	resign(b, roundID)
	over := apitest.Expect[protocol.RoundOver](a)
	var rep protocol.Replay
	getJSON(t, base+over.ReplayURL, &rep)
	for _, p := range rep.Players {
		if p.PlayerID != a.PlayerID {
			continue
		}
		if len(p.Moves) != acked {
			t.Fatalf("replay has %d moves, %d were acknowledged", len(p.Moves), acked)
		}
		for i, e := range p.Moves {
			if e.Seq != i+1 || e.Move != strings.ToUpper(moves[i]) && e.Move != moves[i] {
				t.Fatalf("replay move %d = %+v, want seq %d %s", i, e, i+1, moves[i])
			}
		}
	}
	// The store itself holds the same log.
	c := rs.Client(t)
	keys, _ := c.Keys(context.Background(), "*{round:"+roundID+"}:log:"+a.PlayerID).Result()
	if len(keys) != 1 {
		t.Fatalf("log keys = %v", keys)
	}
	if n, _ := c.LLen(context.Background(), keys[0]).Result(); int(n) != acked {
		t.Fatalf("Redis log has %d entries, %d acknowledged", n, acked)
	}
}

func waitReady(t *testing.T, base string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for status(t, base+"/readyz") != http.StatusOK {
		if time.Now().After(deadline) {
			t.Fatal("/readyz did not come back")
		}
		time.Sleep(50 * time.Millisecond)
	}
}
