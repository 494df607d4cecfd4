package solver

import (
	"fmt"
	"testing"

	"klondike/engine"
)

// beamOn runs a beam search of the given width on a fresh search of g's
// position, within maxNodes nodes.
func beamOn(t *testing.T, g *engine.Game, width int, maxNodes int64) *search {
	t.Helper()
	r := g.Rules()
	r.Undo = engine.UndoOff
	x := &search{}
	if err := x.load(g.String(), r); err != nil {
		t.Fatal(err)
	}
	x.tt.reset(maxSlots)
	x.maxNodes = maxNodes
	x.beam(width)
	return x
}

// beamLineWins reports whether x's line (after a beam's win) replays to a
// win from g's position.
func beamLineWins(t *testing.T, g *engine.Game, x *search) ([]engine.Move, bool) {
	t.Helper()
	r := g.Rules()
	r.Undo = engine.UndoOff
	sim, err := engine.ParseGame(g.String(), r)
	if err != nil {
		t.Fatal(err)
	}
	return x.solution(sim)
}

// TestBeamFindsLateWin: deal 257 in draw 1 with three passes is a late win
// for depth-first search (its complete search alone has not found it
// after 1,000,000 nodes); a beam of width 1,000 wins it within 50,000, and
// so does a solve on 2,000,000 nodes, whose schedule holds that beam.
func TestBeamFindsLateWin(t *testing.T) {
	t.Parallel()
	r := engine.DefaultRules()
	r.Draw, r.Passes = 1, 3
	g, err := engine.NewGame(engine.NumberedDeal(257), r)
	if err != nil {
		t.Fatal(err)
	}
	x := beamOn(t, g, 1000, 50_000)
	if x.stop != stopWon {
		t.Fatalf("beam of width 1000: stop %d after %d nodes, want a win", x.stop, x.nodes)
	}
	if _, ok := beamLineWins(t, g, x); !ok {
		t.Fatal("the beam's line does not replay to a win")
	}
	y := beamOn(t, g, 1000, 50_000)
	if y.nodes != x.nodes || fmt.Sprint(y.hist) != fmt.Sprint(x.hist) {
		t.Errorf("a second beam: %d nodes, another line: want the same search", y.nodes)
	}
	if raceOn || testing.Short() {
		return // the solves below are long searches
	}
	if res := Solve(engine.NumberedDeal(257), r, Budget{Nodes: 2_000_000}); res.Verdict != Winnable {
		t.Errorf("solve on 2,000,000 nodes: %v after %d nodes, want winnable", res.Verdict, res.Nodes)
	}
	none := []phase{}
	res := solveWith(g, Budget{Nodes: 1_000_000}, searchOpts{noRelax: true, phases: &none})
	if res.Verdict != Unknown {
		t.Errorf("the complete search alone on 1,000,000 nodes: %v after %d nodes, want unknown (else the deal no longer shows what the beam adds)", res.Verdict, res.Nodes)
	}
}

// TestBeamLinesReplay runs small beams on the first deals of every variant:
// every win they claim replays to a win, and a beam never claims a win of
// a deal the solver proves unwinnable.
func TestBeamLinesReplay(t *testing.T) {
	t.Parallel()
	deals := uint64(size{long: 30, normal: 10, short: 4, race: 4}.get())
	total := 0
	for _, r := range variants() {
		won := 0
		for n := uint64(1); n <= deals; n++ {
			g, err := engine.NewGame(engine.NumberedDeal(n), r)
			if err != nil {
				t.Fatal(err)
			}
			x := beamOn(t, g, 200, 20_000)
			if x.stop != stopWon {
				continue
			}
			won++
			if _, ok := beamLineWins(t, g, x); !ok {
				t.Errorf("%s deal %d: the beam's line does not replay to a win", variantName(r), n)
			}
			if res := Solve(engine.NumberedDeal(n), r, Budget{Nodes: 100_000}); res.Verdict == Unwinnable {
				t.Errorf("%s deal %d: the beam won a deal the solver proves unwinnable", variantName(r), n)
			}
		}
		total += won
		// Few deals are winnable with one pass, fewest in draw 3: only
		// the large size expects a win in each variant but that one.
		if won == 0 && deals >= 30 && !(r.Draw == 3 && r.Passes == 1) {
			t.Errorf("%s: no beam won any of deals 1-%d", variantName(r), deals)
		}
	}
	if total == 0 {
		t.Errorf("no beam won any deal")
	}
}
