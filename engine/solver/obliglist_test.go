package solver

import (
	"math/rand/v2"
	"slices"
	"testing"

	"klondike/engine"
)

// TestObligationListsSameSearch checks that gen, which leaves out the
// parts of a move list an obligation rules out whole, changes nothing:
// with fullGen it builds every move and filters them, and the two must
// search the same positions in the same order, so they give the same
// verdict, node count and line; on deals' openings and part way through
// random games (eachTestGame).
func TestObligationListsSameSearch(t *testing.T) {
	t.Parallel()
	deals, budget := sameSearchDeals.get(), int64(sameSearchBudget.get())
	rng := rand.New(rand.NewPCG(7, 11))
	eachTestGame(t, rng, deals, func(t *testing.T, r engine.Rules, n, k int, g *engine.Game) {
		b := Budget{Nodes: budget}
		full := solveWith(g, b, searchOpts{fullGen: true})
		skip := solveWith(g, b, searchOpts{})
		if full.Verdict != skip.Verdict || full.Nodes != skip.Nodes || !slices.Equal(full.Moves, skip.Moves) {
			t.Fatalf("deal %d (%d): full lists %v %d nodes, skipped parts %v %d nodes",
				n, k, full.Verdict, full.Nodes, skip.Verdict, skip.Nodes)
		}
	})
}
