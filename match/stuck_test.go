package match_test

import (
	"testing"
	"testing/synctest"
	"time"

	"klondike/engine"
	"klondike/lobby/memstore"
	"klondike/match"
)

// A round dealt a deal that is stuck before its first move (deal #10 in
// draw 3, docs/rules.md) ends as it starts, every game stuck, not at its
// time limit.
func TestStuckDealEndsTheRoundAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sk := newSink()
		s := match.DefaultSettings()
		s.Seed, s.Draw, s.TimeLimitS = "10", 3, 600
		startedMatch(t, "m1", s, matchConfig(memstore.New(), memstore.NewCoord(), sk))
		time.Sleep(time.Second)
		synctest.Wait()
		over := received[match.RoundOver](t, sk, "a")
		if len(over) != 1 {
			t.Fatalf("round_over %d times a second after the start, want once", len(over))
		}
		for _, e := range over[0].Results {
			if e.Status != engine.Stuck {
				t.Errorf("result %+v: want stuck", e)
			}
		}
	})
}
