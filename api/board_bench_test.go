package api_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"klondike/api/servertest"
	"klondike/engine"
	"klondike/lobby/challenge"
	"klondike/lobby/memstore"
	"klondike/lobby/redisstore"
	"klondike/lobby/redisstore/redistest"
	"klondike/match"
)

// boardPlayers is the size of the daily board the benchmark serves.
const boardPlayers = 100_000

// BenchmarkLeaderboardPage100k serves the page a player of a daily round
// with 100,000 finished players asks for: GET
// /api/v1/rounds/{id}/leaderboard?player=ID, the top 100 and the player's
// own rank among their neighbours, from Redis, through the server's whole
// HTTP handler (no network). It reports the served time's p50 and p99.
//
//	go test ./api -run '^$' -bench LeaderboardPage100k -benchtime 5000x
func BenchmarkLeaderboardPage100k(b *testing.B) {
	rs := redistest.Start(b)
	c := redis.NewClient(&redis.Options{Addr: rs.Addr(), PoolSize: 64})
	b.Cleanup(func() { c.Close() })
	async := redisstore.NewChallenges(c, redistest.Prefix(b))
	mem := memstore.NewBackends()
	srv := servertest.New(servertest.Config{
		Store: mem.Store, Players: mem.Players, Coord: mem.Coord, Challenges: async, Records: async,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	b.Cleanup(srv.Close)

	ctx := context.Background()
	rules := engine.DefaultRules()
	now := time.Now()
	rec := challenge.Record{
		ID: "daily-bench-draw3", Kind: challenge.KindDaily, Variant: challenge.Variant(rules), Rules: rules, Mode: match.ModeRace,
		Fair: match.KnownDeal(1), LimitMs: 900_000, OpensAt: now.Add(-time.Hour), ClosesAt: now.Add(time.Hour),
	}
	if _, _, err := async.Create(ctx, rec, 2*time.Hour); err != nil {
		b.Fatal(err)
	}
	players := fillBoard(b, async, &rec, boardPlayers)

	rnd := rand.New(rand.NewPCG(1, 2))
	timeGets(b, srv, func() string {
		return "/api/v1/rounds/" + rec.ID + "/leaderboard?player=" + players[rnd.IntN(len(players))]
	})
}

// timeGets serves GETs of the paths next gives, one an iteration, through
// h's whole handler (no network), and reports the served time's p50 and
// p99.
func timeGets(b *testing.B, h http.Handler, next func() string) {
	b.Helper()
	lat := make([]time.Duration, 0, b.N)
	for b.Loop() {
		req := httptest.NewRequest(http.MethodGet, next(), nil)
		w := httptest.NewRecorder()
		t0 := time.Now()
		h.ServeHTTP(w, req)
		lat = append(lat, time.Since(t0))
		if w.Code != http.StatusOK {
			b.Fatalf("GET %s: %d %s", req.URL, w.Code, w.Body)
		}
	}
	slices.Sort(lat)
	ms := func(q float64) float64 { return float64(lat[int(q*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(ms(0.5), "p50-ms")
	b.ReportMetric(ms(0.99), "p99-ms")
}

// fillBoard starts and finishes n attempts at rec, each a different
// result, and returns their players.
func fillBoard(b *testing.B, async *redisstore.Challenges, rec *challenge.Record, n int) []string {
	b.Helper()
	ctx := context.Background()
	players := make([]string, n)
	var wg sync.WaitGroup
	errs := make(chan error, 1)
	const workers = 32
	for w := range workers {
		wg.Go(func() {
			for i := w; i < n; i += workers {
				id := fmt.Sprintf("p%06d", i)
				players[i] = id
				name := fmt.Sprintf("player %d", i)
				if _, _, err := async.StartAttempt(ctx, rec.ID, challenge.Attempt{PlayerID: id, Name: name, StartedAt: time.Now()}); err != nil {
					select {
					case errs <- err:
					default:
					}
					return
				}
				st := match.Standing{
					PlayerID: id, Name: name, Points: 5 * (i % 100), Foundation: i % 53, Moves: 100 + i%80,
					Status: engine.Stuck, FinishedMs: int64(60_000 + i%800_000), ReachedMs: int64(i % 800_000),
				}
				if st.Foundation == engine.NumCards {
					st.Status = engine.Won
				}
				if _, err := async.Finish(ctx, rec.ID, challenge.EntryOf(rec, st, st.FinishedMs)); err != nil {
					select {
					case errs <- err:
					default:
					}
					return
				}
			}
		})
	}
	wg.Wait()
	select {
	case err := <-errs:
		b.Fatal(err)
	default:
	}
	return players
}
