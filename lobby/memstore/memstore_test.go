package memstore_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"klondike/engine"
	"klondike/lobby/memstore"
	"klondike/lobby/storetest"
	"klondike/match"
)

func TestConformance(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(*testing.T) match.Store { return memstore.New() })
}

func TestConformanceSharedStore(t *testing.T) {
	t.Parallel()
	s := memstore.New()
	storetest.Run(t, func(*testing.T) match.Store { return s })
}

func benchStanding(player string, moves int) match.Standing {
	return match.Standing{PlayerID: player, Name: player, Moves: moves, Points: moves, Status: engine.Playing, FinishedMs: -1}
}

// BenchmarkAppend measures one Append, the memory store's counterpart of
// the Redis store's round trip.
func BenchmarkAppend(b *testing.B) {
	s, ctx := memstore.New(), context.Background()
	seq := 0
	for b.Loop() {
		seq++
		if err := s.Append(ctx, "bench", 0, match.LogEntry{Seq: seq, Move: "T7-F", AtMs: int64(seq)}, benchStanding("p", seq)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAppendParallel appends from parallel goroutines, one player each,
// to one round.
func BenchmarkAppendParallel(b *testing.B) {
	s, ctx := memstore.New(), context.Background()
	var players atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		p := fmt.Sprintf("p%d", players.Add(1))
		seq := 0
		for pb.Next() {
			seq++
			if err := s.Append(ctx, "bench", 0, match.LogEntry{Seq: seq, Move: "T7-F", AtMs: int64(seq)}, benchStanding(p, seq)); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
