package solver

import (
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"

	"klondike/engine"
)

// TestObligationListsSameSearch checks that gen, which leaves out the
// parts of a move list an obligation rules out whole, changes nothing:
// with fullGen it builds every move and filters them, and the two must
// search the same positions in the same order, so they give the same
// verdict, node count and line. KLONDIKE_OBLIG_DEALS=N runs N deals a
// variant (default 12, 4 with -short), from the opening and part way
// through a random game.
func TestObligationListsSameSearch(t *testing.T) {
	deals, budget := 12, int64(60_000)
	if testing.Short() {
		deals, budget = 4, 20_000
	}
	if n, err := strconv.Atoi(os.Getenv("KLONDIKE_OBLIG_DEALS")); err == nil && n > 0 {
		deals = n
	}
	rng := rand.New(rand.NewPCG(7, 11))
	for _, r := range variants() {
		t.Run(variantName(r), func(t *testing.T) {
			for n := 1; n <= deals; n++ {
				d := engine.NumberedDeal(uint64(n))
				games := []*engine.Game{randomWalk(rng, d, r, 0), randomWalk(rng, d, r, 15+rng.IntN(40))}
				for k, g := range games {
					if g == nil || g.Status() != engine.Playing {
						continue
					}
					b := Budget{Nodes: budget}
					full := solveWith(g, b, func(x *search) { x.fullGen = true })
					skip := solveWith(g, b, nil)
					if full.Verdict != skip.Verdict || full.Nodes != skip.Nodes || !slices.Equal(full.Moves, skip.Moves) {
						t.Fatalf("deal %d (%d): full lists %v %d nodes, skipped parts %v %d nodes",
							n, k, full.Verdict, full.Nodes, skip.Verdict, skip.Nodes)
					}
				}
			}
		})
	}
}
