package engine_test

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"klondike/engine"
)

// parseFor reads a position of game v under its default rules, changed by set.
func parseFor(t *testing.T, v engine.Variant, text string, set func(*engine.Rules)) *engine.Game {
	t.Helper()
	r := engine.DefaultRulesFor(v)
	if set != nil {
		set(&r)
	}
	g, err := engine.ParseGame(text, r)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// refuseAs applies move s and wants a refusal matching every sentinel given.
func refuseAs(t *testing.T, g *engine.Game, s string, want ...error) {
	t.Helper()
	m, err := g.Rules().Game.ParseMove(s)
	if err != nil {
		t.Fatal(err)
	}
	before := g.String()
	_, err = g.Apply(m)
	for _, w := range want {
		if !errors.Is(err, w) {
			t.Errorf("%s = %v, want %v", s, err, w)
		}
	}
	if g.String() != before {
		t.Errorf("refused %s changed the game", s)
	}
}

func TestRulesJSON(t *testing.T) {
	// Klondike's rules read and write as they always did.
	const klondike = `{"draw":3,"passes":0,"foundation_to_tableau":true,"undo":"on","scoring":"standard"}`
	if b, _ := json.Marshal(engine.DefaultRules()); string(b) != klondike {
		t.Errorf("DefaultRules JSON %s", b)
	}
	var r engine.Rules
	if err := json.Unmarshal([]byte(klondike), &r); err != nil || r != engine.DefaultRules() {
		t.Errorf("reading %s: %+v, %v", klondike, r, err)
	}
	for v, want := range map[engine.Variant]string{
		engine.ThumbAndPouch:  `{"draw":1,"passes":1,"foundation_to_tableau":true,"undo":"on","scoring":"standard","game":"thumb_and_pouch"}`,
		engine.Whitehead:      `{"draw":1,"passes":1,"foundation_to_tableau":true,"undo":"on","scoring":"standard","game":"whitehead"}`,
		engine.DoubleKlondike: `{"draw":3,"passes":0,"foundation_to_tableau":true,"undo":"on","scoring":"standard","game":"double_klondike"}`,
	} {
		b, _ := json.Marshal(engine.DefaultRulesFor(v))
		if string(b) != want {
			t.Errorf("DefaultRulesFor(%v) JSON %s, want %s", v, b, want)
		}
		var back engine.Rules
		if err := json.Unmarshal(b, &back); err != nil || back != engine.DefaultRulesFor(v) || back.Validate() != nil {
			t.Errorf("reading %s: %+v, %v", b, back, err)
		}
	}
	if err := json.Unmarshal([]byte(`{"draw":3,"game":"spider"}`), &r); !errors.Is(err, engine.ErrBadRules) {
		t.Errorf("game spider: %v", err)
	}
	// Whitehead turns one card at a time and has no redeal.
	for _, set := range []func(*engine.Rules){
		func(r *engine.Rules) { r.Draw = 3 },
		func(r *engine.Rules) { r.Passes = 0 },
		func(r *engine.Rules) { r.Passes = 3 },
	} {
		r := engine.DefaultRulesFor(engine.Whitehead)
		set(&r)
		if err := r.Validate(); !errors.Is(err, engine.ErrBadRules) {
			t.Errorf("%v: Validate = %v", r, err)
		}
	}
	if got := engine.DefaultPassesFor(engine.Whitehead, 3, engine.ScoringStandard); got != 1 {
		t.Errorf("DefaultPassesFor(whitehead) = %d", got)
	}
	if got := engine.DefaultPassesFor(engine.DoubleKlondike, 3, engine.ScoringVegas); got != 3 {
		t.Errorf("DefaultPassesFor(double_klondike, draw 3, vegas) = %d", got)
	}
	if s := engine.DefaultRulesFor(engine.Whitehead).String(); !strings.HasPrefix(s, "whitehead, draw 1, passes 1,") {
		t.Errorf("String() = %q", s)
	}
	for v := range engine.Variant(engine.NumVariants) {
		if p, err := engine.ParseVariant(v.String()); err != nil || p != v {
			t.Errorf("ParseVariant(%q) = %v, %v", v.String(), p, err)
		}
	}
}

func TestVariantParseMove(t *testing.T) {
	for _, tc := range []struct {
		v       engine.Variant
		in, out string
		msg     string
	}{
		{engine.DoubleKlondike, "t9-t8", "T9-T8", ""},
		{engine.DoubleKlondike, "W-T9", "W-T9", ""},
		{engine.DoubleKlondike, "fh-t9", "FH-T9", ""},
		{engine.DoubleKlondike, "T0-F", "", "pile number must be 1..9"},
		{engine.Klondike, "T8-T1", "", "pile number must be 1..7"},
		{engine.Whitehead, "W-T8", "", "pile number must be 1..7"},
		{engine.ThumbAndPouch, "T1:3-T2", "T1:3-T2", ""},
	} {
		m, err := tc.v.ParseMove(tc.in)
		if tc.msg != "" {
			if err == nil || !strings.Contains(err.Error(), tc.msg) || !errors.Is(err, engine.ErrSyntax) {
				t.Errorf("%v: ParseMove(%q) = %v, want %q", tc.v, tc.in, err, tc.msg)
			}
			continue
		}
		if err != nil || m.String() != tc.out {
			t.Errorf("%v: ParseMove(%q) = %v, %v", tc.v, tc.in, m, err)
		}
	}
	// Pile 8 does not exist in a 7-pile game.
	g, _ := engine.NewGame(engine.NumberedDeal(1), engine.DefaultRules())
	if _, err := g.Apply(engine.WasteToPile(8)); !errors.Is(err, engine.ErrMalformedMove) {
		t.Errorf("W-T8 in Klondike: %v", err)
	}
}

func TestThumbAndPouchRules(t *testing.T) {
	g := parseFor(t, engine.ThumbAndPouch, "|KCQH/|KD/|JS/|QS/|/|/| TS|QCKHKSQD JJJ9 0 0", nil)
	// A card goes on one rank higher of another suit, whatever its colour.
	refuseAs(t, g, "W-T3", engine.ErrBuildSuit, engine.ErrBuild, engine.ErrIllegal)
	playTexts(t, g, "T4-T2") // QS on KD
	// Any card, or any upper part of a run, goes to an empty pile.
	playTexts(t, g, "W-T5", "T1:1-T6", "T6-T1", "T1-T7")
	if _, up := g.Pile(7); !slices.Equal(up, []engine.Card{engine.NewCard(13, engine.Clubs), engine.NewCard(12, engine.Hearts)}) {
		t.Errorf("pile 7 = %v", up)
	}
	refuseAs(t, g, "T7:3-T1", engine.ErrRunCount)
	legal := g.LegalMoves(nil)
	for _, want := range []string{"T7-T1", "T7:1-T1"} {
		m, _ := engine.ParseMove(want)
		if !slices.Contains(legal, m) {
			t.Errorf("LegalMoves %v lacks %s", legal, want)
		}
	}
}

func TestWhiteheadRules(t *testing.T) {
	text := "|2C/|6H5H/|KSQS/|JSTS9S8S/|3C/|7H/|4D AC|AH2H3H4H8H9HTHJHQHKHAS2S3S4S4C 5:K3-7 0 0"
	g := parseFor(t, engine.Whitehead, text, nil)
	if g.String() != text || g.FoundationBase() != 5 || !g.AllFaceUp() {
		t.Fatalf("read back %s, base %d", g, g.FoundationBase())
	}
	// The foundations wrap from king to ace.
	playTexts(t, g, "W-F", "T1-F", "T5-F")
	if g.Foundation(engine.Clubs) != 12 {
		t.Errorf("clubs foundation %d", g.Foundation(engine.Clubs))
	}
	// A card goes on one rank higher of the same colour; a run of one suit
	// moves as a block; an empty pile takes any card.
	playTexts(t, g, "T7-T2") // 4D on 5H
	refuseAs(t, g, "T2-T3", engine.ErrBuildColour, engine.ErrIllegal)
	playTexts(t, g, "T4-T3") // JS TS 9S 8S on QS
	if _, up := g.Pile(3); len(up) != 6 {
		t.Errorf("pile 3 = %v", up)
	}
	playTexts(t, g, "T2-T1") // 4D alone: 5H is another suit
	if _, up := g.Pile(1); len(up) != 1 || up[0] != engine.NewCard(4, engine.Diamonds) {
		t.Errorf("pile 1 = %v", up)
	}
	refuseAs(t, g, "T6-T3", engine.ErrBuildColour, engine.ErrBuild)
	g2 := parseFor(t, engine.Whitehead, text, nil)
	refuseAs(t, g2, "T6-F", engine.ErrFoundationBase, engine.ErrFoundationOrder)
	// The view tells the base.
	var v engine.View
	js, err := json.Marshal(g.View(0))
	if err == nil {
		err = json.Unmarshal(js, &v)
	}
	if err != nil || v.FoundationBase != 5 {
		t.Errorf("view base %d, %v", v.FoundationBase, err)
	}
}

// TestWonVariants plays the last moves of a game of each variant to a win.
func TestWonVariants(t *testing.T) {
	for _, tc := range []struct {
		v     engine.Variant
		text  string
		moves []string
	}{
		{engine.ThumbAndPouch, "|KC/|KD/|KH/|KS/|/|/| |QCQDQHQS JJJJ 0 0", []string{"D", "W-F", "T1-F", "D", "W-F", "T2-F", "D", "W-F", "T3-F", "D", "W-F", "T4-F"}},
		{engine.Whitehead, "|4C/|4D/|4H/|4S/|/|/| |3C3D3H3S 5:2222 0 0", []string{"D", "W-F", "T1-F", "D", "W-F", "T2-F", "D", "W-F", "T3-F", "D", "W-F", "T4-F"}},
		{engine.DoubleKlondike, "|KC/|/|/|/|/|/|/|/| KD|KHKS KKKKQQQQ 0 0", []string{"T1-F", "W-F", "D", "W-F", "D", "W-F"}},
	} {
		g := parseFor(t, tc.v, tc.text, func(r *engine.Rules) { r.Draw = 1 })
		moves, ok := g.AutoComplete()
		c := g.Clone()
		for _, m := range moves {
			if _, err := c.Apply(m); err != nil {
				t.Fatalf("%v: auto-complete move %v: %v", tc.v, m, err)
			}
		}
		if !ok || c.Status() != engine.Won {
			t.Errorf("%v: AutoComplete = %v, %v in %s", tc.v, moves, ok, g)
		}
		ev := playTexts(t, g, tc.moves...)
		if g.Status() != engine.Won || !ev.Has(engine.GameWon) || g.FoundationTotal() != tc.v.Cards() {
			t.Errorf("%v: %v after %v (%v): %s", tc.v, g.Status(), tc.moves, ev, g)
		}
	}
}

// TestDoubleFoundations: a card goes to the first foundation of its suit
// that takes it, and comes down from the second when both tops are the
// same card, so the first never holds fewer.
func TestDoubleFoundations(t *testing.T) {
	g := parseFor(t, engine.DoubleKlondike, "|KC/|/|/|/|/|/|/|/| KD|KHKS KKKKQQQQ 0 0", nil)
	playTexts(t, g, "T1-F")
	if g.Foundation(engine.Clubs) != 13 || g.SecondFoundation(engine.Clubs) != 13 {
		t.Fatalf("clubs %d, %d", g.Foundation(engine.Clubs), g.SecondFoundation(engine.Clubs))
	}
	playTexts(t, g, "FC-T9")
	if g.Foundation(engine.Clubs) != 13 || g.SecondFoundation(engine.Clubs) != 12 {
		t.Errorf("after FC-T9: clubs %d, %d", g.Foundation(engine.Clubs), g.SecondFoundation(engine.Clubs))
	}
	v := g.View(0)
	if v.Piles() != 9 || v.Foundations2 == nil || v.Foundations2.C != 12 || v.Foundations.C != 13 {
		t.Errorf("view %+v", v)
	}
	b, _ := json.Marshal(v)
	if !strings.Contains(string(b), `{"down":0,"up":["KC"]}],"stock"`) || !strings.Contains(string(b), `"foundations2":{"C":12,"D":12,"H":12,"S":12}`) {
		t.Errorf("view JSON %s", b)
	}
	// The second foundation is read back in its place, or put there.
	for _, f := range []string{"KKKKQQQQ", "QKKKKQQQ"} {
		g := parseFor(t, engine.DoubleKlondike, "|KC/|/|/|/|/|/|/|/| KD|KHKS "+f+" 0 0", nil)
		if !strings.Contains(g.String(), " KKKKQQQQ ") {
			t.Errorf("%s reads as %s", f, g)
		}
	}
}
