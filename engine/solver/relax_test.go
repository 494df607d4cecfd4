package solver

import (
	"fmt"
	"testing"

	"klondike/engine"
)

// TestRelaxedSearchProves: deal 95 in draw 3 with unlimited passes is
// unwinnable, with a proof many times longer in draw 3 than in draw 1,
// whose moves include draw 3's. The relaxed search proves it within its
// share of a budget that the draw-3 search alone cannot.
func TestRelaxedSearchProves(t *testing.T) {
	t.Parallel()
	g, err := engine.NewGame(engine.NumberedDeal(95), engine.DefaultRules())
	if err != nil {
		t.Fatal(err)
	}
	b := Budget{Nodes: 1_000_000}
	if res := SolveGame(g, b); res.Verdict != Unwinnable || res.Nodes > b.Nodes*relaxShare/1000 {
		t.Errorf("deal 95 draw 3: %v after %d nodes, want unwinnable within the relaxed share (%d)", res.Verdict, res.Nodes, b.Nodes*relaxShare/1000)
	}
	if raceOn || testing.Short() {
		return // the search alone is a long one
	}
	if res := solveWith(g, b, searchOpts{noRelax: true}); res.Verdict != Unknown {
		t.Errorf("deal 95 draw 3 without the relaxed search: %v after %d nodes, want unknown (the draw-3 proof is millions of nodes)", res.Verdict, res.Nodes)
	}
}

// TestRelaxedWinKeepsPasses: a draw-1 win found with unlimited passes is
// taken for a game with limited passes only when it keeps to them. Deal 1
// in draw 1 is won with unlimited passes by a line that recycles; with one
// pass the answer must still be a line of one pass (or another verdict).
func TestRelaxedWinKeepsPasses(t *testing.T) {
	t.Parallel()
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

// TestInterleavedWinKeepsPasses is TestRelaxedWinKeepsPasses for a win of
// the relaxed game found while it takes turns with the strict game's
// complete search (interleave): deal 159 in draw 1 with one pass is won
// there by a line that recycles, which does not win this game.
func TestInterleavedWinKeepsPasses(t *testing.T) {
	t.Parallel()
	if raceOn || testing.Short() {
		t.Skip("a long search")
	}
	r := engine.DefaultRules()
	r.Draw, r.Passes = 1, 1
	d := engine.NumberedDeal(159)
	res := Solve(d, r, Budget{Nodes: 1_000_000})
	if res.Verdict == Winnable {
		if err := replay(d, r, res.Moves); err != nil {
			t.Errorf("deal 159, one pass: the line does not replay: %v", err)
		}
	}
}

// TestWasteLeavers: in the last pass the waste can only be played from the
// top down, so a waste card that can never leave dooms the game. Here 5♠
// lies on 3♠ in the waste with every red six gone up for good (no worrying
// back): 5♠ can neither go up (3♠ is under it) nor onto a six, and 3♠
// cannot come out from under it. With a recycle left the game is won
// in draw 1 (recycle, then draw 3♠ first); in draw 3 a draw always brings
// 3♠, 5♠ and J♠ together, so it is lost all the same, but the dead-end test
// sees it only in the last pass.
func TestWasteLeavers(t *testing.T) {
	const text = "|4S/|6S/|7S/|8S/|9S/|TS/|KS 3S5S|JSQS KKK2 %d 0"
	for _, c := range []struct {
		draw, passes, rec int
		dead, win         bool
	}{
		{1, 1, 0, true, false},
		{3, 1, 0, true, false},
		{1, 3, 2, true, false},
		{1, 3, 1, false, true},
		{3, 3, 0, false, false},
		{1, 0, 5, false, true},
	} {
		r := engine.DefaultRules()
		r.Draw, r.Passes, r.FoundationToTableau = c.draw, c.passes, false
		pos := fmt.Sprintf(text, c.rec)
		x := &search{}
		if err := x.load(pos, r); err != nil {
			t.Fatal(err)
		}
		if got := x.deadlocked(); got != c.dead {
			t.Errorf("draw %d, %d passes, %d recycles made: deadlocked = %v, want %v", c.draw, c.passes, c.rec, got, c.dead)
		}
		g, err := engine.ParseGame(pos, r)
		if err != nil {
			t.Fatal(err)
		}
		want := Winnable
		if !c.win {
			want = Unwinnable
		}
		if v := checkSolve(t, pos, g, 10_000); v != want && !(want == Unwinnable && v == confirmedUnwinnable) {
			t.Errorf("draw %d, %d passes, %d recycles made: %v, want %v", c.draw, c.passes, c.rec, v, want)
		}
	}
	// With worrying back the red sixes can come down to take 5♠: no dead end.
	r := engine.DefaultRules()
	r.Draw, r.Passes = 1, 1
	x := &search{}
	if err := x.load(fmt.Sprintf(text, 0), r); err != nil {
		t.Fatal(err)
	}
	if x.deadlocked() {
		t.Error("deadlocked with worrying back")
	}
}

// TestResumeIsTheSameSearch: a complete search stopped by its budget every
// few nodes and resumed each time (begun by resume too) is the search run
// on the whole budget at once: the same outcome, the same node count and
// the same path (the winning line when it wins). Interleave counts on it.
func TestResumeIsTheSameSearch(t *testing.T) {
	t.Parallel()
	cases := []struct {
		deal  uint64
		draw  int
		nodes int64
		want  stopReason
	}{
		{16, 3, 100_000, stopWon},  // won
		{81, 1, 100_000, stopWon},  // won
		{12, 3, 100_000, running},  // proved unwinnable
		{12, 1, 60_000, stopNodes}, // its draw-1 proof is longer
		{95, 3, 40_000, stopNodes}, // a proof of millions
		{37, 3, 1_000, stopNodes},  // cut at once
	}
	for _, c := range cases {
		r := engine.DefaultRules()
		r.Draw, r.Undo = c.draw, engine.UndoOff
		g, err := engine.NewGame(engine.NumberedDeal(c.deal), r)
		if err != nil {
			t.Fatal(err)
		}
		fresh := func(maxNodes int64) *search {
			x := &search{}
			if err := x.load(g.String(), r); err != nil {
				t.Fatal(err)
			}
			x.tt.reset(maxSlots)
			x.maxNodes = maxNodes
			return x
		}
		whole := fresh(c.nodes)
		whole.run()
		const step = 997
		parts, turns := fresh(step), 1
		parts.resume() // not begun: it runs
		for parts.stop == stopNodes && parts.maxNodes < c.nodes {
			parts.maxNodes = min(parts.maxNodes+step, c.nodes)
			parts.resume()
			turns++
		}
		name := fmt.Sprintf("deal %d draw %d", c.deal, c.draw)
		if whole.stop != c.want {
			t.Errorf("%s: whole search stopped with %d, want %d", name, whole.stop, c.want)
		}
		if parts.stop != whole.stop || parts.nodes != whole.nodes {
			t.Errorf("%s: in %d turns: stop %d after %d nodes; at once: stop %d after %d", name, turns, parts.stop, parts.nodes, whole.stop, whole.nodes)
			continue
		}
		if len(parts.hist) != len(whole.hist) {
			t.Errorf("%s: paths of %d and %d moves", name, len(parts.hist), len(whole.hist))
			continue
		}
		for i := range whole.hist {
			if parts.hist[i].m != whole.hist[i].m {
				t.Errorf("%s: the paths part at move %d", name, i)
				break
			}
		}
		if whole.nodes > 10*step && turns < 10 {
			t.Errorf("%s: only %d turns", name, turns)
		}
	}
}

// TestInterleavedRelaxProves: deal 340 in draw 3 with unlimited passes is
// unwinnable; its draw-1 proof (the complete search alone) is longer than
// the relaxed search's share of a 2,000,000-node budget, its draw-3 one
// longer still. Taking turns with the draw-3 complete search, the draw-1
// proof ends within the budget.
func TestInterleavedRelaxProves(t *testing.T) {
	t.Parallel()
	if raceOn || testing.Short() {
		t.Skip("a long search")
	}
	g, err := engine.NewGame(engine.NumberedDeal(340), engine.DefaultRules())
	if err != nil {
		t.Fatal(err)
	}
	b := Budget{Nodes: 2_000_000}
	res := SolveGame(g, b)
	if res.Verdict != Unwinnable || res.Nodes <= b.Nodes*relaxShare/1000 || res.Nodes > b.Nodes {
		t.Errorf("deal 340 draw 3: %v after %d nodes, want unwinnable after more than the relaxed share (%d) and within the budget", res.Verdict, res.Nodes, b.Nodes*relaxShare/1000)
	}
	if res := solveWith(g, b, searchOpts{noRelax: true}); res.Verdict != Unknown {
		t.Errorf("deal 340 draw 3 without the relaxed search: %v after %d nodes, want unknown", res.Verdict, res.Nodes)
	}
}
