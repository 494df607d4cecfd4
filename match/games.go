package match

import (
	"errors"
	"strings"

	"klondike/engine"
	"klondike/engine/solver"
)

// Solvable reports whether the solver (engine/solver) plays game g, so that
// deals proved winnable and hints can be offered in it.
func Solvable(g engine.Variant) bool { return solver.Supports(g) }

// Refusals of what the solver cannot do in a game it does not play; each
// names the games it does play.
var (
	// ErrNotSolvable: deals "winnable" in a game the solver does not play.
	ErrNotSolvable = errors.New("winnable deals are offered for " + solvableTitles() + " only; this game deals any deal")
	// ErrNoHintsForGame: a hint in a game the solver does not play.
	ErrNoHintsForGame = errors.New("hints are offered for " + solvableTitles() + " only: the solver does not play this game")
)

// gameTitles are the games' names as players read them.
var gameTitles = [engine.NumVariants]string{
	engine.Klondike: "Klondike", engine.ThumbAndPouch: "Thumb and Pouch",
	engine.Whitehead: "Whitehead", engine.DoubleKlondike: "Double Klondike",
}

// solvableTitles names the games the solver plays: "Klondike", "Klondike
// and Thumb and Pouch", "A, B and C".
func solvableTitles() string {
	var names []string
	for v := range engine.Variant(engine.NumVariants) {
		if Solvable(v) {
			names = append(names, gameTitles[v])
		}
	}
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
