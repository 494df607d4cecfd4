package solver

import (
	"testing"

	"klondike/engine"
)

// TestRelaxedSearchProves: deal 95 in draw 3 with unlimited passes is
// unwinnable, with a proof of about 6 million nodes in draw 3 but of under
// 100,000 in draw 1, whose moves include draw 3's. The relaxed search
// proves it within its share of a budget that the draw-3 search alone
// cannot.
func TestRelaxedSearchProves(t *testing.T) {
	g, err := engine.NewGame(engine.NumberedDeal(95), engine.DefaultRules())
	if err != nil {
		t.Fatal(err)
	}
	b := Budget{Nodes: 1_000_000}
	if res := SolveGame(g, b); res.Verdict != Unwinnable || res.Nodes > b.Nodes*relaxShare/1000 {
		t.Errorf("deal 95 draw 3: %v after %d nodes, want unwinnable within the relaxed share (%d)", res.Verdict, res.Nodes, b.Nodes*relaxShare/1000)
	}
	if raceOn {
		return // the search alone is a million nodes
	}
	if res := solveWith(g, b, func(x *search) { x.noRelax = true }); res.Verdict != Unknown {
		t.Errorf("deal 95 draw 3 without the relaxed search: %v after %d nodes, want unknown (the draw-3 proof is millions of nodes)", res.Verdict, res.Nodes)
	}
}

// TestRelaxedWinKeepsPasses: a draw-1 win found with unlimited passes is
// taken for a game with limited passes only when it keeps to them. Deal 1
// in draw 1 is won with unlimited passes by a line that recycles; with one
// pass the answer must still be a line of one pass (or another verdict).
func TestRelaxedWinKeepsPasses(t *testing.T) {
	for _, passes := range []int{1, 3} {
		r := engine.DefaultRules()
		r.Draw, r.Passes = 1, passes
		for n := uint64(1); n <= 6; n++ {
			d := engine.NumberedDeal(n)
			res := Solve(d, r, Budget{Nodes: 200_000})
			if res.Verdict != Winnable {
				continue
			}
			if err := replay(d, r, res.Moves); err != nil {
				t.Errorf("deal %d, %d passes: the line does not replay: %v", n, passes, err)
			}
		}
	}
	// The check itself: a line that recycles does not win a one-pass game.
	r := engine.DefaultRules()
	r.Draw, r.Passes = 1, 0
	d := engine.NumberedDeal(1)
	res := Solve(d, r, Budget{Nodes: 200_000})
	if res.Verdict != Winnable {
		t.Fatalf("deal 1 draw 1: %v", res.Verdict)
	}
	recycles := 0
	for _, m := range res.Moves {
		if m.Kind == engine.Recycle {
			recycles++
		}
	}
	if recycles == 0 {
		t.Fatal("deal 1's line in draw 1 does not recycle: the check below needs one that does")
	}
	one := r
	one.Passes = 1
	g, err := engine.NewGame(d, one)
	if err != nil {
		t.Fatal(err)
	}
	if wins(g, res.Moves) {
		t.Errorf("wins(one pass, a line with %d recycles) = true", recycles)
	}
}
