package challenge_test

import (
	"context"
	"encoding/json"
	"testing"
	"testing/synctest"
	"time"

	"klondike/lobby/challenge"
	"klondike/lobby/memstore"
	"klondike/match"
)

// TestGhostFreezesAtTheFinish: Alice scores a few points and resigns
// within seconds; Bob, playing later, sees her ghost at her result on the
// board at every second after her finish, not a score still losing time.
func TestGhostFreezesAtTheFinish(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		sk := &rawSink{}
		l := challengeNode(t, memstore.NewBackends(), sk)
		alice, bob := hello(t, l, "alice"), hello(t, l, "bob")
		seed := "1" // a known deal, so that the moves are the same each run
		rec, err := l.Create(ctx, alice.PlayerID, match.PartialSettings{Seed: &seed}, 0)
		if err != nil {
			t.Fatal(err)
		}
		start := func(playerID string) *match.Round {
			t.Helper()
			ev, err := l.StartAttempt(ctx, playerID, rec.ID)
			if err != nil {
				t.Fatal(err)
			}
			r, err := l.Round(ctx, ev.RoundID)
			if err != nil {
				t.Fatal(err)
			}
			return r
		}

		ra := start(alice.PlayerID)
		time.Sleep(time.Second)
		playLegal(t, ra, alice.PlayerID, 12)
		time.Sleep(2 * time.Second)
		if err := ra.Resign(ctx, alice.PlayerID, time.Now()); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		page, err := l.Board(ctx, &rec, 1, alice.PlayerID, 0)
		if err != nil || len(page.Top) != 1 {
			t.Fatalf("alice's board %+v, %v: want her entry", page, err)
		}
		want := page.Top[0]
		if want.Foundation == 0 {
			t.Fatalf("alice's entry %+v: the test wants cards home, whose points a falling ghost would lose", want)
		}

		time.Sleep(time.Hour)
		rb := start(bob.PlayerID)
		time.Sleep(21 * time.Second)
		synctest.Wait()
		seen := map[int64]match.Ghost{}
		for _, b := range sk.of(bob.PlayerID, "GhostUpdate") {
			var u struct{ Event match.GhostUpdate }
			if err := json.Unmarshal(b, &u); err != nil {
				t.Fatal(err)
			}
			for _, g := range u.Event.Ghosts {
				if g.PlayerID == alice.PlayerID {
					seen[u.Event.ElapsedMs] = g
				}
			}
		}
		for _, at := range []int64{10_000, 20_000} {
			g, ok := seen[at]
			if !ok {
				t.Fatalf("bob saw no ghost of alice at %d ms (saw %v)", at, seen)
			}
			if g.Score != want.Score || g.Foundation != want.Foundation || g.Won {
				t.Errorf("alice's ghost at bob's %d ms = %+v; want her board entry's score %d, foundation %d",
					at, g, want.Score, want.Foundation)
			}
		}
		if g := seen[10_000]; g.Role != challenge.GhostLeader {
			t.Errorf("alice's ghost %+v: want the leader", g)
		}
		if err := rb.Resign(ctx, bob.PlayerID, time.Now()); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
	})
}
