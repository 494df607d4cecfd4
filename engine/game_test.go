package engine_test

import (
	"errors"
	"strings"
	"testing"

	"klondike/engine"
)

// build is a position for the building and foundation rules: clubs, diamonds,
// hearts and spades are up to 9 on the foundations.
func build(t *testing.T, r engine.Rules) *engine.Game {
	return position(t, r, "|KS/|QD/JC|TH/|/|/|KDQCJH/TC|KC", "QS", "TS", "9999")
}

func TestRefusals(t *testing.T) {
	f2tOff := rules(func(r *engine.Rules) { r.FoundationToTableau = false })
	onePass := rules(func(r *engine.Rules) { r.Passes = 1; r.Draw = 1 })
	undoOff := rules(func(r *engine.Rules) { r.Undo = engine.UndoOff })
	noReveal := rules(func(r *engine.Rules) { r.Undo = engine.UndoNoReveal })
	empty := func(t *testing.T, r engine.Rules) *engine.Game {
		// Nothing left in stock or waste.
		return position(t, r, "|KS/|KH/|KD/|KCQH/|QS/|QC/|QD", "", "", "JJJJ")
	}
	tests := []struct {
		name   string
		game   func(*testing.T, engine.Rules) *engine.Game
		rules  engine.Rules
		before []string
		move   string
		want   error
		reason string
	}{
		{"stock empty", empty, engine.DefaultRules(), nil, "D", engine.ErrStockEmpty, "the stock is empty"},
		{"recycle with stock", build, engine.DefaultRules(), nil, "R", engine.ErrStockNotEmpty, "the waste goes back to the stock only when the stock is empty"},
		{"recycle nothing", empty, engine.DefaultRules(), nil, "R", engine.ErrWasteEmpty, "the waste is empty"},
		{"waste empty to foundation", empty, engine.DefaultRules(), nil, "W-F", engine.ErrWasteEmpty, "the waste is empty"},
		{"waste empty to tableau", empty, engine.DefaultRules(), nil, "W-T1", engine.ErrWasteEmpty, "the waste is empty"},
		{"no passes left", build, onePass, []string{"D", "D", "D", "D", "D", "D"}, "R", engine.ErrNoPassesLeft, "no passes through the stock are left"},
		{"pile empty to foundation", build, engine.DefaultRules(), nil, "T4-F", engine.ErrPileEmpty, "pile 4: the pile is empty"},
		{"pile empty to pile", build, engine.DefaultRules(), nil, "T4-T1", engine.ErrPileEmpty, "pile 4: the pile is empty"},
		{"same pile", build, engine.DefaultRules(), nil, "T1-T1", engine.ErrSamePile, "pile 1: a pile cannot move onto itself"},
		{"foundation order from waste", build, engine.DefaultRules(), nil, "W-F", engine.ErrFoundationOrder, "QS on 9S: a foundation takes the ace of its suit, then the next rank of that suit"},
		{"foundation order from pile", build, engine.DefaultRules(), nil, "T1-F", engine.ErrFoundationOrder, "KS on 9S: a foundation takes the ace of its suit, then the next rank of that suit"},
		{"build colour from waste", build, engine.DefaultRules(), nil, "W-T1", engine.ErrBuild, "QS on KS: a card goes on a face-up card one rank higher of the opposite colour"},
		{"build rank", build, engine.DefaultRules(), nil, "T3-T1", engine.ErrBuild, "TH on KS: a card goes on a face-up card one rank higher of the opposite colour"},
		{"king only", build, engine.DefaultRules(), nil, "T3-T4", engine.ErrKingOnly, "TH to empty pile 4: an empty pile takes only a king"},
		{"king only from waste", build, engine.DefaultRules(), nil, "W-T4", engine.ErrKingOnly, "QS to empty pile 4: an empty pile takes only a king"},
		{"no run fits", build, engine.DefaultRules(), nil, "T6-T7", engine.ErrNoRunFits, "run KD..JH on KC: no face-up run of that pile fits there"},
		{"run count", build, engine.DefaultRules(), nil, "T6:1-T4", engine.ErrRunCount, "asked to move 1, but 3 fit: the count does not match the run that fits"},
		{"f2t off", build, f2tOff, nil, "FC-T3", engine.ErrNoFoundationMoves, "these rules do not allow cards back from a foundation"},
		{"f2t build", build, engine.DefaultRules(), nil, "FH-T1", engine.ErrBuild, "9H on KS: a card goes on a face-up card one rank higher of the opposite colour"},
		{"foundation empty", func(t *testing.T, r engine.Rules) *engine.Game {
			return position(t, r, "|KS/|/|/|/|/|/|", "", "", "-999")
		}, engine.DefaultRules(), nil, "FC-T2", engine.ErrFoundationEmpty, "foundation C: that foundation is empty"},
		{"undo off", build, undoOff, []string{"D"}, "U", engine.ErrUndoOff, "undo is off in this game"},
		{"nothing to undo", build, engine.DefaultRules(), nil, "U", engine.ErrNothingToUndo, "there is no move to undo"},
		{"undo reveal", build, noReveal, []string{"T3-F"}, "U", engine.ErrUndoReveal, "undo cannot take back a move that turned a card face up"},
		{"undo draw", build, noReveal, []string{"D"}, "U", engine.ErrUndoReveal, "undo cannot take back a move that turned a card face up"},
		{"game over", build, engine.DefaultRules(), []string{"resign"}, "D", engine.ErrGameOver, "the game is over"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := tt.game(t, tt.rules)
			for _, s := range tt.before {
				if s == "resign" {
					if err := g.Resign(); err != nil {
						t.Fatal(err)
					}
					continue
				}
				play(t, g, s)
			}
			before, score, moves := g.String(), g.Score(), g.Moves()
			_, err := g.Apply(mustParse(t, tt.move))
			if !errors.Is(err, tt.want) || !errors.Is(err, engine.ErrIllegal) {
				t.Fatalf("Apply(%s) = %v, want %v", tt.move, err, tt.want)
			}
			if err.Error() != tt.reason {
				t.Errorf("Apply(%s) reason = %q, want %q", tt.move, err.Error(), tt.reason)
			}
			if g.String() != before || g.Score() != score || g.Moves() != moves {
				t.Errorf("refused %s changed the game:\n%s\nwant\n%s", tt.move, g, before)
			}
		})
	}
}

func TestMalformedMove(t *testing.T) {
	g := build(t, engine.DefaultRules())
	for _, m := range []engine.Move{{}, {Kind: 99}, {Kind: engine.WasteToTableau, To: 8}, {Kind: engine.TableauToTableau, From: 0, To: 1}, {Kind: engine.FoundationToTableau, From: 4, To: 1}} {
		if _, err := g.Apply(m); !errors.Is(err, engine.ErrMalformedMove) {
			t.Errorf("Apply(%#v) = %v, want ErrMalformedMove", m, err)
		}
	}
}

func TestLegalMovesInBuildPosition(t *testing.T) {
	g := build(t, engine.DefaultRules())
	got := g.LegalMoves(nil)
	want := []string{"D", "T3-F", "T1-T4", "T1-T5", "T2-T1", "T2-T7", "T6-T4", "T6-T5", "T7-T4", "T7-T5", "FC-T3", "FS-T3"}
	if len(got) != len(want) {
		t.Fatalf("LegalMoves = %v, want %v", got, want)
	}
	for i := range got {
		if got[i].String() != want[i] {
			t.Fatalf("LegalMoves = %v, want %v", got, want)
		}
	}
}

func TestRuns(t *testing.T) {
	tests := []struct {
		move  string
		after string
	}{
		// Pile 6 holds KD QC JH; only one length fits a target.
		{"T6-T2", ""}, // nothing of pile 6 goes on QD: refused (checked below)
		{"T6:3-T4", "|KS/|QD/JC|TH/|KDQCJH/|/|/TC|KC"}, // the whole king-headed run to an empty pile
	}
	g := build(t, engine.DefaultRules())
	if _, err := g.Apply(mustParse(t, tests[0].move)); !errors.Is(err, engine.ErrNoRunFits) {
		t.Errorf("T6-T2 = %v, want ErrNoRunFits", err)
	}
	play(t, g, tests[1].move)
	if got := g.String()[:len(tests[1].after)]; got != tests[1].after {
		t.Errorf("after T6:3-T4: %s, want %s", got, tests[1].after)
	}
	// JH alone goes on the black queen... there is none; QS..JH goes on a red king.
	g = position(t, engine.DefaultRules(), "|KH/|KDQSJH/|/|/|/|/|", "", "", "9999")
	play(t, g, "T2-T1")
	if want := "|KHQSJH/|KD/"; g.String()[:len(want)] != want {
		t.Errorf("T2-T1 moved the wrong run: %s", g)
	}
	g = position(t, engine.DefaultRules(), "|QC/|KDQSJH/|/|/|/|/|", "", "", "9999")
	play(t, g, "T2:1-T1")
	if want := "|QCJH/|KDQS/"; g.String()[:len(want)] != want {
		t.Errorf("T2:1-T1 moved the wrong run: %s", g)
	}
}

func TestRevealAndUndo(t *testing.T) {
	g := build(t, engine.DefaultRules())
	before := g.String()
	ev, err := g.Apply(mustParse(t, "T3-F"))
	if err != nil {
		t.Fatal(err)
	}
	if !ev.Has(engine.Revealed | engine.ToFoundation) {
		t.Errorf("T3-F events = %v, want revealed and to_foundation", ev)
	}
	if g.Score() != 15 {
		t.Errorf("score after T3-F with a reveal = %d, want 15", g.Score())
	}
	down, up := g.Pile(3)
	if down != 0 || len(up) != 1 || up[0].String() != "JC" {
		t.Errorf("pile 3 = %d down, up %v; want 0 down, up [JC]", down, up)
	}
	ev, err = g.Apply(engine.UndoMove())
	if err != nil || ev != engine.Undid {
		t.Fatalf("U = %v, %v", ev, err)
	}
	if g.String() != before || g.Score() != 0 || g.Moves() != 2 {
		t.Errorf("after undo: %s score %d moves %d; want %s score 0 moves 2", g, g.Score(), g.Moves(), before)
	}
}

// TestScoreFloor checks that the standard score never goes below zero and
// that undo takes back exactly the change that was applied.
func TestScoreFloor(t *testing.T) {
	g := build(t, engine.DefaultRules())
	play(t, g, "FC-T3") // −15 from 0: floored, applies 0
	if g.Score() != 0 {
		t.Fatalf("score = %d, want 0", g.Score())
	}
	play(t, g, "U", "T3-F", "T2-T1") // +10 +5 reveal
	if g.Score() != 15 {
		t.Fatalf("score = %d, want 15", g.Score())
	}
	play(t, g, "FH-T3") // TH back onto JC: 15 − 15 = 0
	if g.Score() != 0 {
		t.Fatalf("score = %d, want 0", g.Score())
	}
	play(t, g, "FC-T3") // 9C onto TH: −15 from 0 applies 0
	play(t, g, "U")
	if g.Score() != 0 {
		t.Fatalf("score after undoing a floored move = %d, want 0", g.Score())
	}
	play(t, g, "U") // takes back FH-T3's −15
	if g.Score() != 15 {
		t.Fatalf("score after undoing FH-T3 = %d, want 15", g.Score())
	}
}

func TestParseGameRefusesImpossiblePositions(t *testing.T) {
	r := rules(func(r *engine.Rules) { r.Passes = 3 })
	tests := []struct{ text, want string }{
		{"|KS/|KH/|KD/|KC/|QS/|QH/|QD |QCJS JJJT 0 0 extra", "want 5 fields"},
		{"|KS/|KH/|KD/|KC/|QS/|QH |QDQCJS JJJT 0 0", "want 7 piles"},
		{"|KSQS/|KH/|KD/|KC/|QH/|QD/| |QCJS JJJT 0 0", "face-up QS does not go on KS"},
		{"2C3C4C5C6C7C8C|KS/|KH/|KD/|KC/|QS/|QH/|QD |QCJS -JJT 0 0", "7 face-down cards, at most 6"},
		{"KS|/|KH/|KD/|KC/|QS/|QH/|QD |QCJS JJJT 0 0", "a face-down card is on top"},
		{"|KS/|KH/|KD/|KC/|QS/|QH/|QD |QCJS JJJT 3 0", "recycles: 3, but the rules allow 2"},
		{"|KS/|KH/|KD/|KC/|QS/|QH/|QD |QCJS JJJT 0 -5", "below the standard floor"},
		{"|KS/|KH/|KD/|KC/|QS/|QH/|QD |QC JJJT 0 0", "card JS is missing"},
		{"|KS/|KH/|KD/|KC/|QS/|QH/|QD |QCJSJS JJJT 0 0", "duplicate card JS"},
		{"|KS/|KH/|KD/|KC/|QS/|QH/|QD |QCJX JJJT 0 0", `bad card token "JX"`},
		{"|KS/|KH/|KD/|KC/|QS/|QH/|QD |QCJS JJJJ 0 0", "JS is also elsewhere"},
	}
	for _, tt := range tests {
		_, err := engine.ParseGame(tt.text, r)
		if !errors.Is(err, engine.ErrBadPosition) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseGame(%q) = %v, want an ErrBadPosition naming %q", tt.text, err, tt.want)
		}
	}
}
