package challenge_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"klondike/lobby"
	"klondike/lobby/challenge"
	"klondike/lobby/memstore"
	"klondike/match"
)

// helloFrom says hello as a new player from addr.
func helloFrom(t *testing.T, n *node, addr, name string) lobby.Session {
	t.Helper()
	s, _, err := n.l.HelloFrom(context.Background(), addr, name, "")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// challenges makes k challenges by the player.
func challenges(t *testing.T, n *node, playerID string, k int) []challenge.Record {
	t.Helper()
	var out []challenge.Record
	for range k {
		rec, err := n.Create(context.Background(), playerID, match.PartialSettings{}, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rec)
	}
	return out
}

// TestAttemptsInPlayPerPlayer: one player starting 50 attempts has 3 in
// play; the others are refused with their own error; once one ends,
// another may start, and a resume is never refused.
func TestAttemptsInPlayPerPlayer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		n := newNode(t, memstore.NewBackends(), &rawSink{}, challenge.Config{ChallengesPerHour: -1})
		maker, mallory := hello(t, n, "maker"), hello(t, n, "mallory")
		recs := challenges(t, n, maker.PlayerID, 50)
		started, refused := 0, 0
		var first match.RoundStarted
		for _, rec := range recs {
			ev, err := n.StartAttempt(ctx, mallory.PlayerID, rec.ID)
			switch {
			case err == nil:
				if started == 0 {
					first = ev
				}
				started++
			case errors.Is(err, challenge.ErrTooManyAttempts):
				refused++
			default:
				t.Fatalf("StartAttempt: %v", err)
			}
		}
		if started != challenge.DefaultMaxAttemptsPerPlayer || refused != 50-started {
			t.Fatalf("one player started %d attempts (%d refused), want %d in play", started, refused, challenge.DefaultMaxAttemptsPerPlayer)
		}
		if _, err := n.StartAttempt(ctx, mallory.PlayerID, first.MatchID); err != nil {
			t.Fatalf("resuming an attempt in play: %v", err)
		}
		r, err := n.Round(ctx, first.RoundID)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Resign(ctx, mallory.PlayerID, time.Now()); err != nil {
			t.Fatal(err)
		}
		time.Sleep(challenge.DefaultGhostEvery) // the tick that ends it
		synctest.Wait()
		if _, err := n.StartAttempt(ctx, mallory.PlayerID, recs[49].ID); err != nil {
			t.Fatalf("an attempt once one ended: %v", err)
		}
	})
}

// TestAttemptsInPlayPerAddr: 25 players from one address start an
// attempt each; 20 are in play, the others refused; a player from another
// address still starts.
func TestAttemptsInPlayPerAddr(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		n := newNode(t, memstore.NewBackends(), &rawSink{}, challenge.Config{})
		maker := hello(t, n, "maker")
		rec := challenges(t, n, maker.PlayerID, 1)[0]
		started := 0
		for i := range 25 {
			p := helloFrom(t, n, "203.0.113.7", fmt.Sprintf("p%d", i))
			switch _, err := n.StartAttempt(ctx, p.PlayerID, rec.ID); {
			case err == nil:
				started++
			case !errors.Is(err, challenge.ErrTooManyAttemptsFromAddr):
				t.Fatalf("StartAttempt: %v", err)
			}
		}
		if started != challenge.DefaultMaxAttemptsPerIP {
			t.Fatalf("25 players of one address started %d attempts, want %d", started, challenge.DefaultMaxAttemptsPerIP)
		}
		other := helloFrom(t, n, "198.51.100.1", "other")
		if _, err := n.StartAttempt(ctx, other.PlayerID, rec.ID); err != nil {
			t.Fatalf("a player of another address: %v", err)
		}
	})
}

// TestAttemptsInPlayPerNode: past MaxAttempts held, a node refuses new
// attempts as too many for the server.
func TestAttemptsInPlayPerNode(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		n := newNode(t, memstore.NewBackends(), &rawSink{}, challenge.Config{MaxAttempts: 5})
		maker := hello(t, n, "maker")
		rec := challenges(t, n, maker.PlayerID, 1)[0]
		for i := range 5 {
			p := hello(t, n, fmt.Sprintf("p%d", i))
			if _, err := n.StartAttempt(ctx, p.PlayerID, rec.ID); err != nil {
				t.Fatalf("attempt %d: %v", i+1, err)
			}
		}
		p := hello(t, n, "sixth")
		if _, err := n.StartAttempt(ctx, p.PlayerID, rec.ID); !errors.Is(err, challenge.ErrAttemptsFull) {
			t.Fatalf("the sixth attempt on a node of 5: %v, want ErrAttemptsFull", err)
		}
	})
}

// TestDailyPlayersPerAddr: of 25 players from one address, 20 play the
// daily round, for the whole day, even once their attempts are over; a
// player from another address plays.
func TestDailyPlayersPerAddr(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		n := newNode(t, memstore.NewBackends(), &rawSink{}, challenge.Config{MaxAttemptsPerIP: -1})
		_, recs, err := n.Daily(ctx)
		if err != nil {
			t.Fatal(err)
		}
		daily := recs[0].ID
		started := 0
		for i := range 25 {
			p := helloFrom(t, n, "203.0.113.7", fmt.Sprintf("p%d", i))
			ev, err := n.StartAttempt(ctx, p.PlayerID, daily)
			switch {
			case err == nil:
				started++
				r, err := n.Round(ctx, ev.RoundID)
				if err != nil {
					t.Fatal(err)
				}
				if err := r.Resign(ctx, p.PlayerID, time.Now()); err != nil {
					t.Fatal(err)
				}
			case !errors.Is(err, challenge.ErrDailyFromAddr):
				t.Fatalf("StartAttempt: %v", err)
			}
			time.Sleep(challenge.DefaultGhostEvery) // each resigned attempt ends
		}
		if started != challenge.DefaultDailyAttemptsPerIP {
			t.Fatalf("25 players of one address played the daily round %d times, want %d", started, challenge.DefaultDailyAttemptsPerIP)
		}
		other := helloFrom(t, n, "198.51.100.1", "other")
		if _, err := n.StartAttempt(ctx, other.PlayerID, daily); err != nil {
			t.Fatalf("a player of another address: %v", err)
		}
	})
}
