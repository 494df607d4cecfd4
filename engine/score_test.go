package engine_test

import (
	"strconv"
	"testing"
	"time"

	"klondike/engine"
)

// delta plays one move from a fresh fixture and returns the score change.
func delta(t *testing.T, g *engine.Game, move string) int {
	t.Helper()
	before := g.Score()
	play(t, g, move)
	return g.Score() - before
}

// TestWorkedExample655 checks the rule book's worked example: a won game in
// which 30 cards reach the foundations from the tableau, 22 from the waste,
// all 21 hidden cards are turned and 6 waste cards are first played to the
// tableau scores 30·10 + 22·10 + 21·5 + 6·5 = 655 before time adjustments.
// Each term is what the engine scores for a real move of that kind.
func TestWorkedExample655(t *testing.T) {
	r := engine.DefaultRules()
	tableauUp := delta(t, build(t, r), "T2-T1") // no points: a tableau move
	if tableauUp != 0 {
		t.Fatalf("T2-T1 scored %d, want 0", tableauUp)
	}
	toFoundationAndReveal := delta(t, build(t, r), "T3-F") // TH up, JC turned
	fromTableau := delta(t, position(t, r, "|KS/|QD/|JCTH/|/|/|KDQCJH/TC|KC", "QS", "TS", "9999"), "T3-F")
	reveal := toFoundationAndReveal - fromTableau
	fromWaste := delta(t, position(t, r, "|KS/|QD/JC|TH/|/|/|KDQCJH/TC|KC", "TS", "", "9999"), "W-F")
	wasteToTableau := delta(t, position(t, r, "|KS/|QD/JC|TH/|/|/|KDQCJH/TC|KC", "QH", "", "9999"), "W-T1")
	got := 30*fromTableau + 22*fromWaste + 21*reveal + 6*wasteToTableau
	if got != 655 {
		t.Errorf("30·%d + 22·%d + 21·%d + 6·%d = %d, want 655", fromTableau, fromWaste, reveal, wasteToTableau, got)
	}
	if fromTableau != 10 || fromWaste != 10 || reveal != 5 || wasteToTableau != 5 {
		t.Errorf("points: tableau→foundation %d, waste→foundation %d, reveal %d, waste→tableau %d; want 10, 10, 5, 5",
			fromTableau, fromWaste, reveal, wasteToTableau)
	}
	if got := engine.TimedScore(engine.ScoringStandard, 655, 0, false); got != 655 {
		t.Errorf("untimed 655 = %d", got)
	}
}

// recycler is a position with a two-card talon and nothing else to do but
// draw and recycle; a score to start from is given so the floor does not hide
// penalties.
func recycler(t *testing.T, r engine.Rules, score int) *engine.Game {
	t.Helper()
	text := "|KS/|KH/|KD/|KC/|QS/|QH/|QD |QCJS JJJT 0 " + strconv.Itoa(score)
	g, err := engine.ParseGame(text, r)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestRecyclePenalties(t *testing.T) {
	draw1 := rules(func(r *engine.Rules) { r.Draw = 1 })
	g := recycler(t, draw1, 1000)
	for i := range 3 {
		play(t, g, "D", "D")
		if d := delta(t, g, "R"); d != -100 {
			t.Errorf("draw 1 recycle %d scored %d, want −100", i+1, d)
		}
	}
	draw3 := rules(nil)
	g = recycler(t, draw3, 1000)
	want := []int{0, 0, 0, -20, -20}
	for i, w := range want {
		play(t, g, "D")
		if d := delta(t, g, "R"); d != w {
			t.Errorf("draw 3 recycle %d scored %d, want %d", i+1, d, w)
		}
	}
	// Undo of the fifth recycle gives back 20 and the count, so it costs 20 again.
	play(t, g, "U")
	if g.Score() != 1000-20 || g.Recycles() != 4 {
		t.Errorf("after undo: score %d recycles %d, want 980 and 4", g.Score(), g.Recycles())
	}
	if d := delta(t, g, "R"); d != -20 {
		t.Errorf("recycle again after undo scored %d, want −20", d)
	}
	// The floor: from 50, a −100 recycle applies −50 and undo gives back 50.
	g = recycler(t, draw1, 50)
	play(t, g, "D", "D", "R")
	if g.Score() != 0 {
		t.Errorf("score after floored recycle = %d, want 0", g.Score())
	}
	play(t, g, "U")
	if g.Score() != 50 {
		t.Errorf("score after undoing floored recycle = %d, want 50", g.Score())
	}
}

func TestVegasAndNone(t *testing.T) {
	vegas := rules(func(r *engine.Rules) { r.Scoring = engine.ScoringVegas })
	g, err := engine.NewGame(engine.NumberedDeal(1), vegas)
	if err != nil {
		t.Fatal(err)
	}
	if g.Score() != -52 {
		t.Fatalf("Vegas opening score = %d, want −52", g.Score())
	}
	// Deal #1: aces on piles 6 and 7.
	play(t, g, "T6-F", "T7-F")
	if g.Score() != -42 {
		t.Errorf("Vegas after two cards up = %d, want −42", g.Score())
	}
	g = build(t, vegas)
	// The fixture starts at 0 by its text; Vegas counts ±5 a card from there.
	if d := delta(t, g, "FC-T3"); d != -5 {
		t.Errorf("Vegas foundation to tableau = %d, want −5", d)
	}
	if d := delta(t, g, "T3-F"); d != 5 {
		t.Errorf("Vegas tableau to foundation = %d, want 5 (no reveal points)", d)
	}
	none := rules(func(r *engine.Rules) { r.Scoring = engine.ScoringNone })
	g = build(t, none)
	play(t, g, "T3-F", "FH-T3", "T2-T1")
	if g.Score() != 0 {
		t.Errorf("none scoring = %d, want 0", g.Score())
	}
	if got := engine.TimedScore(engine.ScoringVegas, -12, time.Hour, true); got != -12 {
		t.Errorf("Vegas timed = %d, want −12 (no time adjustment)", got)
	}
}

func TestTimedScore(t *testing.T) {
	tests := []struct {
		points  int
		elapsed time.Duration
		won     bool
		want    int
	}{
		{100, 9 * time.Second, false, 100},
		{100, 10 * time.Second, false, 98},
		{100, 19999 * time.Millisecond, false, 98},
		{100, 20 * time.Second, false, 96},
		{10, 100 * time.Second, false, 0},                      // penalty floors at 0
		{655, 29 * time.Second, true, 655 - 4},                 // under 30 s: no bonus
		{655, 30 * time.Second, true, 655 - 6 + 23333},         // 700000/30
		{655, 183 * time.Second, true, 655 - 36 + 3825},        // 700000/183 = 3825.1
		{0, 1000 * time.Second, true, 700},                     // max(0, 0−200) + 700
		{655, 30500 * time.Millisecond, true, 655 - 6 + 23333}, // whole seconds
	}
	for _, tt := range tests {
		if got := engine.TimedScore(engine.ScoringStandard, tt.points, tt.elapsed, tt.won); got != tt.want {
			t.Errorf("TimedScore(standard, %d, %v, %v) = %d, want %d", tt.points, tt.elapsed, tt.won, got, tt.want)
		}
	}
}
