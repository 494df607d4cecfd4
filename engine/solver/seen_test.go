package solver

import (
	"math/rand/v2"
	"slices"
	"testing"

	"klondike/engine"
)

// TestSeenChildSameSearch checks that seenChild, which skips a child
// found in the table without making its move, changes nothing: every
// child it skips, made through enter as well, is one enter skips
// (checkSeen), and the search with it gives the same verdict, node count
// and line as the search without it; on deals' openings and part way
// through random games (eachTestGame).
func TestSeenChildSameSearch(t *testing.T) {
	t.Parallel()
	deals, budget := sameSearchDeals.get(), int64(sameSearchBudget.get())
	rng := rand.New(rand.NewPCG(5, 13))
	skipped := 0
	eachTestGame(t, rng, deals, func(t *testing.T, r engine.Rules, n, k int, g *engine.Game) {
		b := Budget{Nodes: budget}
		var c seenCheck
		checked := solveWith(g, b, searchOpts{checkSeen: &c})
		skipped += c.skips
		if c.wrong > 0 {
			t.Fatalf("deal %d (%d): %d children skipped that enter would search", n, k, c.wrong)
		}
		plain := solveWith(g, b, searchOpts{noSeenChild: true})
		fast := solveWith(g, b, searchOpts{})
		if plain.Verdict != fast.Verdict || plain.Nodes != fast.Nodes || !slices.Equal(plain.Moves, fast.Moves) {
			t.Fatalf("deal %d (%d): without seenChild %v %d nodes, with it %v %d nodes",
				n, k, plain.Verdict, plain.Nodes, fast.Verdict, fast.Nodes)
		}
		if checked.Verdict != fast.Verdict {
			t.Fatalf("deal %d (%d): checked %v, fast %v", n, k, checked.Verdict, fast.Verdict)
		}
	})
	if skipped == 0 {
		t.Fatal("seenChild skipped no child")
	}
	t.Logf("%d children skipped without their move", skipped)
}
