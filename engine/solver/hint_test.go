package solver

import (
	"testing"

	"klondike/engine"
)

// TestHintPlaysToAWin plays whole games on hints as Hint's documentation
// says a caller should: it keeps the line of the last hint and plays its
// moves, and asks again, from the position reached, after every few moves
// (as if the player had left the line). Every hint must be legal and the
// game must end won.
func TestHintPlaysToAWin(t *testing.T) {
	t.Parallel()
	deals := []uint64{1, 2, 3}
	if raceOn || testing.Short() {
		deals = deals[:1]
	}
	for _, r := range []engine.Rules{variants()[0], variants()[6], engine.DefaultRulesFor(engine.ThumbAndPouch)} {
		for _, n := range deals {
			g, _ := engine.NewGame(engine.NumberedDealFor(r.Game, n), r)
			first := Hint(g, Budget{Nodes: 200_000})
			if first.Verdict != Winnable {
				continue // only games the solver wins quickly
			}
			for step := 0; g.Status() == engine.Playing; step++ {
				if step > 100 {
					t.Fatalf("%s deal %d: no win after 100 hints", variantName(r), n)
				}
				text := g.String()
				h := Hint(g, Budget{Nodes: 200_000})
				if g.String() != text {
					t.Fatalf("Hint changed the game")
				}
				if h.Verdict != Winnable || h.Move.Kind == engine.NoMove || h.Move != h.Line[0] {
					t.Fatalf("%s deal %d after %d hints: %v, move %v", variantName(r), n, step, h.Verdict, h.Move)
				}
				// Follow the line for a while, then ask afresh.
				for _, m := range h.Line[:min(len(h.Line), 7)] {
					if _, err := g.Apply(m); err != nil {
						t.Fatalf("%s deal %d: hinted %v refused: %v", variantName(r), n, m, err)
					}
				}
			}
			if g.Status() != engine.Won {
				t.Errorf("%s deal %d: %v after following the hints", variantName(r), n, g.Status())
			}
		}
	}
}

func TestHintEnds(t *testing.T) {
	r := engine.DefaultRules()
	won, err := engine.ParseGame("|/|/|/|/|/|/| | KKKK 0 0", r)
	if err != nil {
		t.Fatal(err)
	}
	if h := Hint(won, Budget{Nodes: 10}); h.Verdict != Winnable || h.Move.Kind != engine.NoMove {
		t.Errorf("won game: %+v, want winnable with no move", h)
	}
	// Deal 10 is stuck from the start in draw 3 (docs/rules.md).
	stuck, _ := engine.NewGame(engine.NumberedDeal(10), r)
	if h := Hint(stuck, Budget{Nodes: 1000}); h.Verdict != Unwinnable || h.Move.Kind != engine.NoMove {
		t.Errorf("stuck game: %+v, want unwinnable with no move", h)
	}
	g, _ := engine.NewGame(engine.NumberedDeal(2), r)
	if h := Hint(g, Budget{Nodes: 1}); h.Verdict != Unknown || h.Move.Kind != engine.NoMove {
		t.Errorf("deal 2 with one node: %+v, want unknown with no move", h)
	}
}
