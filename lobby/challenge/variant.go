package challenge

import (
	"fmt"
	"strings"

	"klondike/engine"
	"klondike/match"
)

// Variant names the records a game counts in: the game for one other than
// Klondike, the draw, and the scoring when it is not standard ("draw3",
// "draw1", "draw3-vegas", "thumb_and_pouch-draw1", "whitehead-draw1-none").
func Variant(r engine.Rules) string {
	v := "draw1"
	if r.Draw == 3 {
		v = "draw3"
	}
	if r.Game != engine.Klondike {
		v = r.Game.String() + "-" + v
	}
	if r.Scoring != engine.ScoringStandard {
		v += "-" + r.Scoring.String()
	}
	return v
}

// ParseVariant returns the rules of a variant's name (Variant): its game
// (Klondike when it names none; "klondike-" is read too), draw and
// scoring, with the passes a match's settings default to (match.DefaultPasses),
// and the other options as a match's default settings have them (undo but
// of a reveal, foundation to tableau allowed).
func ParseVariant(name string) (engine.Rules, error) {
	r := engine.DefaultRules()
	r.Undo = engine.UndoNoReveal
	rest := name
	if first, after, ok := strings.Cut(name, "-"); ok {
		if g, err := engine.ParseVariant(first); err == nil {
			r.Game, rest = g, after
		}
	}
	draw, scoring, _ := strings.Cut(rest, "-")
	switch draw {
	case "draw1":
		r.Draw = 1
	case "draw3":
		r.Draw = 3
	default:
		return r, fmt.Errorf("%w: variant %q: want draw1 or draw3, optionally with -vegas or -none, after a game and a dash for a game other than Klondike (thumb_and_pouch-draw1)", match.ErrBadSettings, name)
	}
	if scoring != "" {
		sc, err := engine.ParseScoring(scoring)
		if err != nil || sc == engine.ScoringStandard {
			return r, fmt.Errorf("%w: variant %q: the scoring after the draw is vegas or none", match.ErrBadSettings, name)
		}
		r.Scoring = sc
	}
	r.Passes = match.DefaultPasses(r.Game, r.Draw, r.Scoring)
	if err := r.Validate(); err != nil {
		return r, fmt.Errorf("%w: variant %q: %v", match.ErrBadSettings, name, err)
	}
	return r, nil
}
