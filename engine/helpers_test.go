package engine_test

import (
	"strings"
	"testing"

	"klondike/engine"
)

// position builds a game from the text form's parts. Cards that the parts
// leave out go to the end of the stock, in canonical order, so a fixture
// names only the cards it is about.
func position(t *testing.T, r engine.Rules, piles, waste, stock, found string) *engine.Game {
	t.Helper()
	used := piles + waste + stock
	for s := range engine.Suit(engine.NumSuits) {
		if ch := found[s]; ch != '-' {
			for rank := 1; rank <= strings.IndexByte("A23456789TJQK", ch)+1; rank++ {
				used += engine.NewCard(rank, s).String()
			}
		}
	}
	var b strings.Builder
	b.WriteString(stock)
	for i := range engine.NumCards {
		tok := engine.CardAt(i).String()
		if !containsToken(used, tok) {
			b.WriteString(tok)
		}
	}
	text := piles + " " + waste + "|" + b.String() + " " + found + " 0 0"
	g, err := engine.ParseGame(text, r)
	if err != nil {
		t.Fatalf("ParseGame(%q): %v", text, err)
	}
	return g
}

// containsToken reports whether tok stands at an even offset of a run of
// card tokens with '/' and '|' separators.
func containsToken(s, tok string) bool {
	for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r == '/' || r == '|' }) {
		for i := 0; i+2 <= len(part); i += 2 {
			if part[i:i+2] == tok {
				return true
			}
		}
	}
	return false
}

// rules returns the default rules changed by f.
func rules(f func(*engine.Rules)) engine.Rules {
	r := engine.DefaultRules()
	if f != nil {
		f(&r)
	}
	return r
}

// mustParse parses a move or fails the test.
func mustParse(t *testing.T, s string) engine.Move {
	t.Helper()
	m, err := engine.ParseMove(s)
	if err != nil {
		t.Fatalf("ParseMove(%q): %v", s, err)
	}
	return m
}

// play applies the moves, failing the test on the first refusal.
func play(t *testing.T, g *engine.Game, moves ...string) {
	t.Helper()
	for _, s := range moves {
		if _, err := g.Apply(mustParse(t, s)); err != nil {
			t.Fatalf("Apply(%s) in %v: %v", s, g, err)
		}
	}
}
