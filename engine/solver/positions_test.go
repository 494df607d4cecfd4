package solver

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"klondike/engine"
)

// randomPosition builds a small position of r's game: most cards on the
// foundations, the rest spread over the tableau (face down and in face-up
// runs) and the talon, with a random waste size and recycle count.
func randomPosition(rng *rand.Rand, r engine.Rules) string {
	var found [4]int
	var rest []engine.Card
	for {
		rest = rest[:0]
		low := -1
		if rng.IntN(2) == 0 {
			low = rng.IntN(4) // one suit far behind: cards come back down
		}
		for s := range found {
			found[s] = 13 - rng.IntN(8)
			if rng.IntN(5) == 0 {
				found[s] = 13
			}
			if s == low {
				found[s] = rng.IntN(5)
			}
			for rank := found[s] + 1; rank <= 13; rank++ {
				rest = append(rest, engine.NewCard(rank, engine.Suit(s)))
			}
		}
		if len(rest) >= 8 && len(rest) <= 18 {
			break
		}
	}
	rng.Shuffle(len(rest), func(i, j int) { rest[i], rest[j] = rest[j], rest[i] })
	gr := rulesOf(r.Game)
	goes := func(d, c engine.Card) bool { return gr.onto[c.Index()]&(1<<d.Index()) != 0 }
	used := map[engine.Card]bool{}
	take := func() engine.Card {
		for _, c := range rest {
			if !used[c] {
				used[c] = true
				return c
			}
		}
		return engine.NoCard
	}
	left := func() int { return len(rest) - len(used) }
	talonN := rng.IntN(min(left(), 10) + 1)
	var talon []engine.Card
	for range talonN {
		talon = append(talon, take())
	}
	var piles [7]string
	for i := range piles {
		var b strings.Builder
		if left() == 0 || rng.IntN(5) == 0 {
			piles[i] = "|"
			continue
		}
		down := rng.IntN(5)
		if left() <= down {
			down = 0
		}
		for range down {
			b.WriteString(take().String())
		}
		b.WriteByte('|')
		c := take()
		b.WriteString(c.String())
		// Grow a run on it from the cards left, when they fit.
		for rng.IntN(2) != 0 {
			var nextCard engine.Card
			for _, d := range rest {
				if !used[d] && goes(d, c) {
					nextCard = d
					break
				}
			}
			if nextCard == engine.NoCard {
				break
			}
			used[nextCard] = true
			b.WriteString(nextCard.String())
			c = nextCard
		}
		piles[i] = b.String()
	}
	// Cards still left go to the talon.
	for left() > 0 {
		talon = append(talon, take())
	}
	w := 0
	if len(talon) > 0 {
		w = rng.IntN(len(talon) + 1)
	}
	names := make([]string, len(talon))
	for i, c := range talon {
		names[i] = c.String()
	}
	return strings.Join(piles[:], "/") + " " + tailText(rng, r, names, w, found)
}

// tailText is the text of a position after its piles: the talon with the
// waste ending before w, the foundations, a random count of recycles made
// (within r's passes) and the moves made (0).
func tailText(rng *rand.Rand, r engine.Rules, talon []string, w int, found [4]int) string {
	var tb strings.Builder
	for i, c := range talon {
		if i == w {
			tb.WriteByte('|')
		}
		tb.WriteString(c)
	}
	if w == len(talon) {
		tb.WriteByte('|')
	}
	var fb strings.Builder
	for _, n := range found {
		if n == 0 {
			fb.WriteByte('-')
		} else {
			fb.WriteByte("A23456789TJQK"[n-1])
		}
	}
	rec := 0
	if r.Passes > 1 {
		rec = rng.IntN(r.Passes)
	}
	return fmt.Sprintf("%s %s %d 0", tb.String(), fb.String(), rec)
}

// randomWalk plays up to n random legal moves (never U) from the deal's
// opening and returns the game, stopping early when it ends.
func randomWalk(rng *rand.Rand, d engine.Deal, r engine.Rules, n int) *engine.Game {
	g, _ := engine.NewGame(d, r)
	var moves []engine.Move
	for range n {
		if g.Status() != engine.Playing {
			break
		}
		moves = g.LegalMoves(moves[:0])
		moves = slices.DeleteFunc(moves, func(m engine.Move) bool { return m.Kind == engine.Undo })
		// Prefer moves that change the tableau, so walks get somewhere.
		var good []engine.Move
		for _, m := range moves {
			if m.Kind != engine.Draw && m.Kind != engine.Recycle && m.Kind != engine.FoundationToTableau {
				good = append(good, m)
			}
		}
		if len(good) > 0 && rng.IntN(4) != 0 {
			moves = good
		}
		if len(moves) == 0 {
			break
		}
		g.Apply(moves[rng.IntN(len(moves))])
	}
	return g
}

// lastCardPosition is randomPosition with the waste set on the recycling
// cycle more often, so that the last-card rule applies at the start.
func lastCardPosition(rng *rand.Rand, r engine.Rules) string {
	text := randomPosition(rng, r)
	f := strings.Fields(text)
	waste, stock, _ := strings.Cut(f[1], "|")
	talon := waste + stock
	n := len(talon) / 2
	if n == 0 {
		return text
	}
	var w int
	switch rng.IntN(3) {
	case 0:
		w = n
	default:
		w = 3 * rng.IntN(n/3+1)
	}
	f[1] = talon[:2*w] + "|" + talon[2*w:]
	return strings.Join(f, " ")
}

// sameSearchDeals and sameSearchBudget size the same-search tests (the
// search with a shortcut against the search without it): the deals a
// variant eachTestGame takes, and the node budget of each solve.
var (
	sameSearchDeals  = size{long: 12, normal: 4, short: 2, race: 2}
	sameSearchBudget = size{long: 60_000, normal: 20_000, short: 10_000, race: 10_000}
)

// eachTestGame calls f, in a subtest per variant, with the positions the
// same-search tests solve: deals 1..deals of each variant of every game from their
// opening (k = 0) and part way through a random game (k = 1), when the
// game is still being played.
func eachTestGame(t *testing.T, rng *rand.Rand, deals int, f func(t *testing.T, r engine.Rules, n, k int, g *engine.Game)) {
	for _, r := range allVariants() {
		t.Run(variantName(r), func(t *testing.T) {
			for n := 1; n <= deals; n++ {
				d := engine.NumberedDealFor(r.Game, uint64(n))
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
