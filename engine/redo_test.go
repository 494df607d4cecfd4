package engine_test

import (
	"errors"
	"testing"

	"klondike/engine"
)

// playTexts applies moves given in the notation and fails on any refusal.
func playTexts(t *testing.T, g *engine.Game, moves ...string) engine.Events {
	t.Helper()
	var ev engine.Events
	for _, s := range moves {
		m, err := g.Rules().Game.ParseMove(s)
		if err != nil {
			t.Fatal(err)
		}
		if ev, err = g.Apply(m); err != nil {
			t.Fatalf("%s: %v (in %s)", s, err, g)
		}
	}
	return ev
}

func TestRedo(t *testing.T) {
	g, err := engine.NewGame(engine.NumberedDeal(1), engine.DefaultRules())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Apply(engine.RedoMove()); !errors.Is(err, engine.ErrNothingToRedo) || g.CanRedo() {
		t.Fatalf("Y at the start = %v, CanRedo %v; want ErrNothingToRedo", err, g.CanRedo())
	}
	playTexts(t, g, "D", "T6-F")
	afterTwo, score := g.String(), g.Score()
	playTexts(t, g, "U", "U")
	if !g.CanRedo() {
		t.Fatal("CanRedo after U U = false")
	}
	if ev := playTexts(t, g, "Y"); ev != engine.Drew|engine.Redid {
		t.Errorf("Y of D: events %v", ev)
	}
	if ev := playTexts(t, g, "y"); ev != engine.Revealed|engine.ToFoundation|engine.Redid {
		t.Errorf("Y of T6-F: events %v", ev)
	}
	if g.String() != afterTwo || g.Score() != score || g.Moves() != 6 {
		t.Errorf("after D T6-F U U Y Y: %s score %d moves %d; want %s score %d moves 6", g, g.Score(), g.Moves(), afterTwo, score)
	}
	if _, err := g.Apply(engine.RedoMove()); !errors.Is(err, engine.ErrNothingToRedo) {
		t.Errorf("a third Y = %v", err)
	}
	// A new move after an undo clears what could be redone.
	playTexts(t, g, "U", "T7-F")
	if g.CanRedo() {
		t.Error("CanRedo after U and a new move = true")
	}
	// Undo off: Y is refused as U is.
	r := engine.DefaultRules()
	r.Undo = engine.UndoOff
	g, _ = engine.NewGame(engine.NumberedDeal(1), r)
	playTexts(t, g, "D")
	if _, err := g.Apply(engine.RedoMove()); !errors.Is(err, engine.ErrUndoOff) {
		t.Errorf("Y with undo off = %v, want ErrUndoOff", err)
	}
	// no_reveal: a move that turned nothing may be undone and redone.
	r.Undo = engine.UndoNoReveal
	g, _ = engine.NewGame(engine.NumberedDeal(1), r)
	playTexts(t, g, "D", "T6-F", "T7-F", "T7-T6")
	if ev := playTexts(t, g, "W-T3", "U", "Y", "U", "Y"); ev != engine.ToTableau|engine.Redid {
		t.Errorf("Y of W-T3 under no_reveal: events %v", ev)
	}
	// The text form: Y is written as Y, and LegalMoves never lists it.
	if engine.RedoMove().String() != "Y" {
		t.Errorf("RedoMove() = %q", engine.RedoMove().String())
	}
	g, _ = engine.NewGame(engine.NumberedDeal(1), engine.DefaultRules())
	playTexts(t, g, "D", "U")
	for _, m := range g.LegalMoves(nil) {
		if m.Kind == engine.Redo {
			t.Errorf("LegalMoves lists %v", m)
		}
	}
	// A checkpoint taken with a redo pending survives a new move rolled back.
	cp := g.Checkpoint()
	playTexts(t, g, "T6-F")
	g.Rollback(cp)
	if !g.CanRedo() {
		t.Fatal("CanRedo after a rollback = false")
	}
	if ev := playTexts(t, g, "Y"); ev != engine.Drew|engine.Redid {
		t.Errorf("Y after a rollback: events %v", ev)
	}
	// Clone keeps what can be redone.
	playTexts(t, g, "U")
	c := g.Clone()
	if ev := playTexts(t, c, "Y"); ev != engine.Drew|engine.Redid {
		t.Errorf("Y on a clone: events %v", ev)
	}
}
