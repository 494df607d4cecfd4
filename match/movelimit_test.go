package match_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"klondike/engine"
	"klondike/lobby/memstore"
	"klondike/match"
)

// longRound makes a running round of one player, "a", over store: an
// attempt-like round of the longest time limit, on deal 1, draw 3 with
// unlimited passes, so that drawing and recycling go on for ever.
func longRound(tb testing.TB, id string, store match.Store, start time.Time) *match.Round {
	tb.Helper()
	r := engine.DefaultRules()
	r.Undo = engine.UndoNoReveal
	rr := match.RoundRecord{
		ID: id, MatchID: "m-" + id, Rules: r, Mode: match.ModeRace, Fair: match.FairDeal{Seed: 1, Known: true},
		StartsAt: start, EndsAt: start.Add(match.MaxTimeLimitS * time.Second),
		Players: []match.Player{{ID: "a", Name: "alice"}}, Phase: "running",
	}
	round, err := match.RoundFromRecord(rr, store)
	if err != nil {
		tb.Fatal(err)
	}
	return round
}

// cycle returns n moves that only draw and recycle on the round's deal.
func cycle(tb testing.TB, r *match.Round, n int) []string {
	tb.Helper()
	g, err := engine.NewGame(r.Deal, r.Rules)
	if err != nil {
		tb.Fatal(err)
	}
	out := make([]string, 0, n)
	for range n {
		m := engine.Move{Kind: engine.Draw}
		if _, err := g.Apply(m); err != nil {
			m = engine.Move{Kind: engine.Recycle}
			if _, err := g.Apply(m); err != nil {
				tb.Fatalf("neither D nor R after %d moves: %v", len(out), err)
			}
		}
		out = append(out, m.String())
	}
	return out
}

// playAll plays moves from seq from.
func playAll(tb testing.TB, r *match.Round, from int, moves []string, now time.Time) {
	tb.Helper()
	for i, m := range moves {
		if _, err := r.Move(context.Background(), "a", from+i, m, now, nil); err != nil {
			tb.Fatalf("move %d (%s): %v", from+i, m, err)
		}
	}
}

// TestMoveLimit: a game takes MaxMoves moves and no more; the refusal says
// so in words; a retry of the last move, the view and resigning still work.
func TestMoveLimit(t *testing.T) {
	ctx := context.Background()
	now := time.Now()
	r := longRound(t, "limit", memstore.New(), now.Add(-time.Second))
	moves := cycle(t, r, match.MaxMoves+1)
	playAll(t, r, 1, moves[:match.MaxMoves], now)

	_, err := r.Move(ctx, "a", match.MaxMoves+1, moves[match.MaxMoves], now, nil)
	if !errors.Is(err, match.ErrMoveLimit) {
		t.Fatalf("move %d: %v, want ErrMoveLimit", match.MaxMoves+1, err)
	}
	if want := strconv.Itoa(match.MaxMoves) + "-move limit: resign, or wait"; !strings.Contains(err.Error(), want) {
		t.Errorf("the refusal %q does not say %q", err, want)
	}
	if res, err := r.Move(ctx, "a", match.MaxMoves, moves[match.MaxMoves-1], now, nil); err != nil || !res.Duplicate {
		t.Errorf("a retry of the last move = %+v, %v; want a duplicate", res, err)
	}
	if _, last, err := r.View(ctx, "a", now); err != nil || last != match.MaxMoves {
		t.Errorf("View: last seq %d, %v; want %d", last, err, match.MaxMoves)
	}
	if err := r.Resign(ctx, "a", now); err != nil {
		t.Errorf("Resign at the limit: %v", err)
	}
}

// countingStore counts the reads of whole logs.
type countingStore struct {
	match.Store
	logs atomic.Int64
}

func (s *countingStore) Log(ctx context.Context, roundID, playerID string) ([]match.LogEntry, error) {
	s.logs.Add(1)
	return s.Store.Log(ctx, roundID, playerID)
}

// TestResync: resuming on the node that served the player keeps its seat
// (no read of the log); after the player played on another node, or after
// another node took the seat over, the next view or move is the store's.
func TestResync(t *testing.T) {
	ctx := context.Background()
	now := time.Now()
	store := &countingStore{Store: memstore.New()}
	here := longRound(t, "resync", store, now.Add(-time.Second))
	there := longRound(t, "resync", store, now.Add(-time.Second))
	moves := cycle(t, here, 20)

	playAll(t, here, 1, moves[:5], now)
	read := store.logs.Load()
	here.Resync(ctx, "a")
	if _, last, err := here.View(ctx, "a", now); err != nil || last != 5 {
		t.Fatalf("View after Resync: last %d, %v; want 5", last, err)
	}
	if n := store.logs.Load() - read; n != 0 {
		t.Errorf("resuming where the player last played read the log %d times, want 0", n)
	}

	// The player plays on another node, then comes back.
	playAll(t, there, 6, moves[5:9], now)
	here.Resync(ctx, "a")
	if _, last, err := here.View(ctx, "a", now); err != nil || last != 9 {
		t.Fatalf("View after moves elsewhere: last %d, %v; want 9", last, err)
	}
	playAll(t, here, 10, moves[9:10], now)

	// Another node takes the seat over and plays nothing: this node's
	// seat looks current, and its next move finds the newer writer and
	// moves on from the store.
	if _, _, err := there.View(ctx, "a", now); err != nil {
		t.Fatal(err)
	}
	here.Resync(ctx, "a")
	if res, err := here.Move(ctx, "a", 11, moves[10], now, nil); err != nil || res.Seq != 11 {
		t.Fatalf("move 11 after another node took the seat: %+v, %v", res, err)
	}
	if log, err := store.Log(ctx, "resync", "a"); err != nil || len(log) != 11 {
		t.Fatalf("the stored log has %d moves, %v; want 11", len(log), err)
	}

	// A resignation elsewhere, by the player resuming there, shows here
	// too.
	there.Resync(ctx, "a")
	if err := there.Resign(ctx, "a", now); err != nil {
		t.Fatal(err)
	}
	here.Resync(ctx, "a")
	if v, _, err := here.View(ctx, "a", now); err != nil || v.Status != engine.Resigned {
		t.Fatalf("view after resigning elsewhere: %v, %v; want resigned", v.Status, err)
	}
}

// BenchmarkResume is a player resuming an attempt on the node that served
// them, by log length: Resync then View against Reseat then View, which
// replays the whole log. Compare each length's ratio of the two.
func BenchmarkResume(b *testing.B) {
	for _, n := range []int{100, 5000} {
		ctx := context.Background()
		now := time.Now()
		r := longRound(b, "bench-"+strconv.Itoa(n), memstore.New(), now.Add(-time.Second))
		playAll(b, r, 1, cycle(b, r, n), now)
		for _, how := range []struct {
			name   string
			resume func()
		}{
			{"reseat", func() { r.Reseat("a") }},
			{"resync", func() { r.Resync(ctx, "a") }},
		} {
			b.Run(how.name+"/moves="+strconv.Itoa(n), func(b *testing.B) {
				for b.Loop() {
					how.resume()
					if _, last, err := r.View(ctx, "a", now); err != nil || last != n {
						b.Fatalf("View: %d, %v", last, err)
					}
				}
			})
		}
	}
}
