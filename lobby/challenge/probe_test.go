package challenge_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"klondike/lobby/memstore"
	"klondike/match"
)

// TestStoppingEarlyProtectsNoScore: two players make the same moves in
// their first 30 s; one resigns then, the other waits out their time. Both
// stand on the board with the same score: resigning early protected
// nothing.
func TestStoppingEarlyProtectsNoScore(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		l := challengeNode(t, memstore.NewBackends(), &rawSink{})
		probe, honest := hello(t, l, "probe"), hello(t, l, "honest")
		seed := "1" // a known deal, so that the moves are the same each run
		rec, err := l.Create(ctx, honest.PlayerID, match.PartialSettings{Seed: &seed}, 0)
		if err != nil {
			t.Fatal(err)
		}
		rounds := map[string]*match.Round{}
		for _, p := range []string{probe.PlayerID, honest.PlayerID} {
			ev, err := l.StartAttempt(ctx, p, rec.ID)
			if err != nil {
				t.Fatal(err)
			}
			if rounds[p], err = l.Round(ctx, ev.RoundID); err != nil {
				t.Fatal(err)
			}
			playLegal(t, rounds[p], p, 12)
		}
		time.Sleep(30 * time.Second)
		if err := rounds[probe.PlayerID].Resign(ctx, probe.PlayerID, time.Now()); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rec.LimitMs) * time.Millisecond)
		synctest.Wait()
		page, err := l.Board(ctx, &rec, 10, "", 0)
		if err != nil || len(page.Top) != 2 {
			t.Fatalf("board %+v, %v: want both", page, err)
		}
		by := map[string]match.BoardEntry{}
		for _, e := range page.Top {
			by[e.PlayerID] = e
		}
		p, h := by[probe.PlayerID], by[honest.PlayerID]
		if p.Score != h.Score || p.Foundation != h.Foundation || p.Foundation == 0 {
			t.Errorf("resigned at 30 s: %+v; waited out the time: %+v; want the same score", p, h)
		}
		if p.ElapsedMs != 30_000 || h.ElapsedMs != rec.LimitMs {
			t.Errorf("elapsed %d and %d ms, want 30000 and %d: where each game ended", p.ElapsedMs, h.ElapsedMs, rec.LimitMs)
		}
	})
}
