package api_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"klondike/api/servertest"
	"klondike/lobby"
	"klondike/lobby/memstore"
	"klondike/lobby/rating"
	"klondike/lobby/redisstore"
	"klondike/lobby/redisstore/redistest"
)

// ladderPlayers is the size of the ladder the benchmark serves.
const ladderPlayers = 100_000

// BenchmarkLadderPage100k serves the page a player on a ladder of 100,000
// established players asks for: GET /api/v1/ladder/klondike/3?around=ID,
// the top 100 and the player's place among their neighbours, from Redis,
// through the server's whole HTTP handler (no network), as
// BenchmarkLeaderboardPage100k serves a daily board. It reports the served
// time's p50 and p99.
//
//	go test ./api -run '^$' -bench LadderPage100k -benchtime 5000x
func BenchmarkLadderPage100k(b *testing.B) {
	rs := redistest.Start(b)
	c := redis.NewClient(&redis.Options{Addr: rs.Addr(), PoolSize: 64})
	b.Cleanup(func() { c.Close() })
	ratings := redisstore.NewRatings(c, redistest.Prefix(b))
	mem := memstore.NewBackends()
	srv := servertest.New(servertest.Config{
		Store: mem.Store, Players: mem.Players, Coord: mem.Coord, Ratings: ratings,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	b.Cleanup(srv.Close)
	players := fillLadder(b, ratings, ladderPlayers)

	rnd := rand.New(rand.NewPCG(1, 2))
	timeGets(b, srv, func() string { return "/api/v1/ladder/klondike/3?around=" + players[rnd.IntN(len(players))] })
}

// fillLadder puts n established players on klondike/3's ladder, two a
// rated round, and returns their ids.
func fillLadder(b *testing.B, rs lobby.Ratings, n int) []string {
	b.Helper()
	ctx := context.Background()
	players := make([]string, n)
	for i := range players {
		players[i] = fmt.Sprintf("p%06d", i)
	}
	now := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, 1)
	const workers = 32
	for w := range workers {
		wg.Go(func() {
			for i := 2 * w; i+1 < n; i += 2 * workers {
				rr := lobby.RatedRound{RoundID: fmt.Sprintf("r%06d", i), Key: "klondike/3", At: now}
				for k := range 2 {
					after := rating.Rating{Rating: 800 + float64((i+k)*7919%1600), Deviation: 60, Volatility: rating.InitialVol, Rounds: 20, At: now}
					rr.Changes = append(rr.Changes, lobby.RatedPlayer{PlayerID: players[i+k], Name: "player " + players[i+k], Place: k + 1, Before: rating.New(), After: after})
				}
				if _, _, err := rs.Apply(ctx, rr); err != nil {
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
