package redisstore

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"klondike/lobby"
	"klondike/lobby/rating"
	"klondike/lobby/redisstore/redistest"
)

// The ladder's benchmark: a ladder of 100,000 established players on a
// loopback redis-server, filled before the timing starts by pipelined runs
// of Apply's own script, two players a round (a few seconds).
//
//	go test ./lobby/redisstore -run '^$' -bench LadderPage -benchtime 2000x
//
// BenchmarkLadderPage times the top 100 (top), and a player's place with
// the page of 100 that holds it (around), and reports beside the latency
// percentiles the server's time a call (redis-µs/op, INFO commandstats)
// and Redis's memory a player: their rating, ladder entries, a history
// point and half a round's record (bytes/player).

const (
	benchLadderPlayers = 100_000
	benchLadderPage    = 100
)

// BenchmarkLadderPage times pages of a ladder of 100,000 players, one call
// at a time.
func BenchmarkLadderPage(b *testing.B) {
	// The server and its ladder are the parent's: a sub-benchmark runs more
	// than once (first with b.N 1).
	srv := redistest.Start(b)
	f := &benchBoard{srv: srv} // for its INFO readers
	c := srv.Client(b)
	r := NewRatings(c, redistest.Prefix(b))
	ctx := context.Background()
	now := time.Date(2031, 3, 14, 12, 0, 0, 0, time.UTC)
	rnd := rand.New(rand.NewPCG(5, 6))
	if err := ratingApplyScript.Load(ctx, c).Err(); err != nil {
		b.Fatal(err)
	}

	// Established players rated in the last ten days, with deviations that
	// keep them so for a month at least; ratings to the half point, so that
	// many are equal.
	player := func() (string, string, rating.Rating) {
		at := now.Add(-time.Duration(rnd.Int64N(int64(10 * 24 * time.Hour))))
		r := rating.Rating{
			Rating:    math.Round(2*(1500+300*rnd.NormFloat64())) / 2,
			Deviation: 45 + 45*rnd.Float64(), Volatility: 0.06, Rounds: 1, At: at,
		}
		return fmt.Sprintf("%016x", rnd.Uint64()), fmt.Sprintf("%s%d", benchNames[rnd.IntN(len(benchNames))], rnd.IntN(10000)), r
	}
	m0 := f.usedMemory(b)
	var ids []string
	for len(ids) < benchLadderPlayers {
		pipe := c.Pipeline()
		for range benchFillBatch / 2 {
			rr := lobby.RatedRound{RoundID: fmt.Sprintf("bench-r%d", len(ids)), MatchID: "bench-m", Key: "klondike/3", At: now}
			for place := 1; place <= 2; place++ {
				id, name, after := player()
				rr.Changes = append(rr.Changes, lobby.RatedPlayer{PlayerID: id, Name: name, Place: place, Before: rating.New(), After: after})
				ids = append(ids, id)
			}
			keys, args, err := r.applyArgs(rr)
			if err != nil {
				b.Fatal(err)
			}
			ratingApplyScript.EvalSha(ctx, pipe, keys, args...)
		}
		cmds, err := pipe.Exec(ctx)
		if err != nil {
			b.Fatal(err)
		}
		for _, cmd := range cmds {
			if err := cmd.Err(); err != nil {
				b.Fatal(err)
			}
		}
	}
	m1 := f.usedMemory(b)

	page := func(b *testing.B, from int) {
		got, total, err := r.Ladder(ctx, "klondike/3", from, benchLadderPage, now)
		if err != nil {
			b.Fatal(err)
		}
		if total != benchLadderPlayers || len(got) != min(benchLadderPage, total-from) {
			b.Fatalf("Ladder(%d, %d) = %d entries of %d", from, benchLadderPage, len(got), total)
		}
	}
	run := func(b *testing.B, call func(b *testing.B)) {
		var lat []time.Duration
		_, usec0 := f.scriptTime(b)
		for b.Loop() {
			t0 := time.Now()
			call(b)
			lat = append(lat, time.Since(t0))
		}
		_, usec := f.scriptTime(b)
		reportLatency(b, lat)
		b.ReportMetric(float64(usec-usec0)/float64(len(lat)), "redis-µs/op")
		b.ReportMetric(float64(m1-m0)/benchLadderPlayers, "bytes/player")
	}
	b.Run("top", func(b *testing.B) {
		run(b, func(b *testing.B) { page(b, 0) })
	})
	b.Run("around", func(b *testing.B) {
		run(b, func(b *testing.B) {
			id := ids[rnd.IntN(len(ids))]
			place, err := r.Place(ctx, "klondike/3", id, now)
			if err != nil || place < 0 {
				b.Fatalf("Place(%s) = %d, %v", id, place, err)
			}
			page(b, place-place%benchLadderPage)
		})
	})
}
