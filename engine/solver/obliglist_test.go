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
	deals, budget := testDeals("KLONDIKE_OBLIG_DEALS"), int64(60_000)
	if testing.Short() {
		budget = 20_000
	}
	rng := rand.New(rand.NewPCG(7, 11))
	eachTestGame(t, rng, deals, func(t *testing.T, r engine.Rules, n, k int, g *engine.Game) {
		b := Budget{Nodes: budget}
		full := solveWith(g, b, func(x *search) { x.fullGen = true })
		skip := solveWith(g, b, nil)
		if full.Verdict != skip.Verdict || full.Nodes != skip.Nodes || !slices.Equal(full.Moves, skip.Moves) {
			t.Fatalf("deal %d (%d): full lists %v %d nodes, skipped parts %v %d nodes",
				n, k, full.Verdict, full.Nodes, skip.Verdict, skip.Nodes)
		}
	})
}

// eachTestGame calls f, in a subtest per variant, with the positions the
// same-search tests solve: deals 1..deals of each variant from their
// opening (k = 0) and part way through a random game (k = 1), when the
// game is still being played.
func eachTestGame(t *testing.T, rng *rand.Rand, deals int, f func(t *testing.T, r engine.Rules, n, k int, g *engine.Game)) {
	for _, r := range variants() {
		t.Run(variantName(r), func(t *testing.T) {
			for n := 1; n <= deals; n++ {
				d := engine.NumberedDeal(uint64(n))
				games := []*engine.Game{randomWalk(rng, d, r, 0), randomWalk(rng, d, r, 15+rng.IntN(40))}
				for k, g := range games {
					if g != nil && g.Status() == engine.Playing {
						f(t, r, n, k, g)
					}
				}
			}
		})
	}
}

// testDeals returns the deals a variant for a same-search test: 12, or 4
// with -short, or the number in the environment variable env.
func testDeals(env string) int {
	deals := 12
	if testing.Short() {
		deals = 4
	}
	if n, err := strconv.Atoi(os.Getenv(env)); err == nil && n > 0 {
		deals = n
	}
	return deals
}
