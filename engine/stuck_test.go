package engine_test

import (
	"testing"

	"klondike/engine"
)

// In the stuck fixtures the foundations hold every card up to 8, every nine is
// face down, the face-up cards are all black (nothing builds), and the talon
// holds cards that fit nowhere unless a case adds one.
const stuckPiles = "9C|KC/9D|KS/9H|QC/9S|QS/TDTH|JC/JDJH|JS/QDQH|TC"

func TestStuck(t *testing.T) {
	draw1 := rules(func(r *engine.Rules) { r.Draw = 1 })
	draw1OnePass := rules(func(r *engine.Rules) { r.Draw = 1; r.Passes = 1 })
	draw3 := rules(nil)
	tests := []struct {
		name              string
		r                 engine.Rules
		piles, waste, stk string
		found             string
		want              bool
	}{
		{"nothing fits", draw1, stuckPiles, "", "TSKDKH", "8888", true},
		{"stock card fits", draw1, "9C|KC/9D|KS/9H|QC/9S|QS/TDTS|JC/JDJH|JS/QDTH|TC", "", "QHKDKH", "8888", false},
		{"waste top fits", draw1, "9C|KC/9D|KS/9H|QC/9S|QS/TDTS|JC/JDJH|JS/QDTH|TC", "KDQH", "KH", "8888", false},
		// QH is under KD in the waste: draw 1 with a pass left reaches it again.
		{"buried card, recycle left", draw1, "9C|KC/9D|KS/9H|QC/9S|QS/TDTS|JC/JDJH|JS/QDTH|TC", "QHKD", "KH", "8888", false},
		// With one pass there is no recycle, so QH is out of reach.
		{"buried card, no passes", draw1OnePass, "9C|KC/9D|KS/9H|QC/9S|QS/TDTS|JC/JDJH|JS/QDTH|TC", "QHKD", "KH", "8888", true},
		// Draw 3 over three cards: only the third is ever on top.
		{"draw 3 never reaches it", draw3, "9C|KC/9D|KS/9H|QC/9S|QS/TDTS|JC/JDJH|JS/QDTH|TC", "QHKD", "KH", "8888", true},
		{"draw 3 reaches it", draw3, "9C|KC/9D|KS/9H|QC/9S|QS/TDTS|JC/JDJH|JS/QDTH|TC", "", "KDKHQH", "8888", false},
		// A whole king-headed pile may move to an empty pile, but that changes nothing.
		{"pointless king move", draw1, "|KC/9D|KS/9H|QC/9S|QS/TDTH9C|JC/JDJH|JS/QDQH|TC", "", "TSKDKH", "8888", true},
		// The same king with a card beneath it: the move would reveal it.
		{"useful king move", draw1, "9C|KC/9D|KS/9H|QC/9S|QS/TDTH|JC/|/QDQH|TC", "", "TSKDKHJDJHJS", "8888", false},
		// A foundation card that fits a pile keeps the game going.
		{"tableau to foundation", draw1, "9C|KC/9D|KS/TD|QC/9S|QS/JD|JCTH/JH|JS/QDQH|TC", "", "TSKDKH", "8898", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := position(t, tt.r, tt.piles, tt.waste, tt.stk, tt.found)
			if got := g.IsStuck(); got != tt.want {
				t.Errorf("IsStuck() = %v, want %v in %v (legal: %v)", got, tt.want, g, g.LegalMoves(nil))
			}
			wantStatus := engine.Playing
			if tt.want {
				wantStatus = engine.Stuck
			}
			if g.Status() != wantStatus {
				t.Errorf("Status() = %v, want %v", g.Status(), wantStatus)
			}
		})
	}
}

// TestFoundationToTableauUnsticks checks that a foundation card that fits a
// pile counts as a move, and only while the rules allow it.
func TestFoundationToTableauUnsticks(t *testing.T) {
	// The foundations hold up to 9 in hearts: 9H would fit on TC.
	piles := "9C|KC/9D|KS/TD|QC/9S|QS/THTS|JC/JDJH|JS/QDQH|TC"
	on := position(t, rules(func(r *engine.Rules) { r.Draw = 1 }), piles, "", "KDKH", "8898")
	if on.IsStuck() {
		t.Errorf("with foundation-to-tableau on, FH-T7 is left: not stuck; legal %v", on.LegalMoves(nil))
	}
	off := position(t, rules(func(r *engine.Rules) { r.Draw = 1; r.FoundationToTableau = false }), piles, "", "KDKH", "8898")
	if !off.IsStuck() {
		t.Errorf("with foundation-to-tableau off: stuck; legal %v", off.LegalMoves(nil))
	}
}

// TestStuckAfterMove checks that a move that leaves the game stuck ends it.
func TestStuckAfterMove(t *testing.T) {
	// QH on the waste fits on a king; D covers it, and with no pass left
	// nothing that can still come up fits.
	g := position(t, rules(func(r *engine.Rules) { r.Draw = 1; r.Passes = 1 }), "9C|KC/9D|KS/9H|QC/9S|QS/TDTH|JC/JDTS|JS/QDJH|TC", "QH", "KDKH", "8888")
	if g.Status() != engine.Playing {
		t.Fatalf("before D: %v, want playing", g.Status())
	}
	ev, err := g.Apply(engine.DrawMove())
	if err != nil {
		t.Fatal(err)
	}
	if !ev.Has(engine.GameStuck) || g.Status() != engine.Stuck {
		t.Fatalf("after the last draw: events %v, status %v; want stuck", ev, g.Status())
	}
	if _, err := g.Apply(engine.UndoMove()); err != engine.ErrGameOver {
		t.Errorf("U after stuck = %v, want ErrGameOver", err)
	}
}
