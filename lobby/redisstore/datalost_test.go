package redisstore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"klondike/engine"
	"klondike/lobby/redisstore"
	"klondike/lobby/redisstore/redistest"
	"klondike/match"
)

// TestAppendAfterFlushAll: a Redis emptied (FLUSHALL) between two appends
// of a claimed seat refuses the second as ErrDataLost and keeps nothing
// of it, through the batched appends and a lone one alike.
func TestAppendAfterFlushAll(t *testing.T) {
	t.Parallel()
	rs := redistest.Start(t)
	c := rs.Client(t)
	ctx := context.Background()
	for name, cfg := range map[string]redisstore.Config{
		"batched":     {Prefix: redistest.Prefix(t)},
		"one a batch": {Prefix: redistest.Prefix(t), MaxBatch: 1, Linger: -1},
	} {
		s := redisstore.New(c, cfg)
		defer s.Close()
		epoch, err := s.ClaimSeat(ctx, "r1", "p1")
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Append(ctx, "r1", epoch, entry(1), standing("p1", 1)); err != nil {
			t.Fatal(err)
		}
		if err := c.FlushAll(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		if err := s.Append(ctx, "r1", epoch, entry(2), standing("p1", 2)); !errors.Is(err, match.ErrDataLost) {
			t.Fatalf("%s: Append after FLUSHALL = %v, want match.ErrDataLost", name, err)
		}
		if n := c.DBSize(ctx).Val(); n != 0 {
			keys := c.Keys(ctx, "*").Val()
			t.Fatalf("%s: %d keys after the refused append: %v, want none", name, n, keys)
		}
	}
}

// TestRoundMoveAfterFlushAll: a player's move in a round whose Redis was
// emptied is refused with match.ErrDataLost and rolled back, and the game
// is not written back into the empty store; the node's view of the game
// stays where the last kept move left it.
func TestRoundMoveAfterFlushAll(t *testing.T) {
	t.Parallel()
	rs := redistest.Start(t)
	c := rs.Client(t)
	ctx := context.Background()
	s := redisstore.New(c, redisstore.Config{Prefix: redistest.Prefix(t)})
	defer s.Close()
	now := time.Now()
	r, err := match.NewRound("r1", "m1", 1, engine.DefaultRules(), match.ModeRace, match.KnownDeal(1),
		now.Add(-time.Second), time.Hour, []match.Player{{ID: "p1", Name: "p1"}}, s)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(ctx); err != nil {
		t.Fatal(err)
	}
	for seq := 1; seq <= 3; seq++ {
		if _, err := r.Move(ctx, "p1", seq, "D", now, nil); err != nil {
			t.Fatalf("move %d: %v", seq, err)
		}
	}
	if err := c.FlushAll(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	for range 2 { // a client that tries again is refused again
		if res, err := r.Move(ctx, "p1", 4, "D", now, nil); !errors.Is(err, match.ErrDataLost) {
			t.Fatalf("move 4 after FLUSHALL = %+v, %v; want match.ErrDataLost", res, err)
		}
	}
	if n := c.DBSize(ctx).Val(); n != 0 {
		t.Fatalf("%d keys after the refused move: %v, want none (no log written back)", n, c.Keys(ctx, "*").Val())
	}
	if _, last, err := r.View(ctx, "p1", now); err != nil || last != 3 {
		t.Fatalf("View after the refused move: last seq %d, %v; want 3", last, err)
	}
}
