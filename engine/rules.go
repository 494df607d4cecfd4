package engine

import (
	"errors"
	"fmt"
)

// An UndoPolicy says whether a player may take moves back.
type UndoPolicy uint8

// The undo policies. UndoNoReveal allows undo except of a move that turned a
// card face up (a tableau card, or stock cards drawn to the waste): in a
// race, undoing it would let a player peek at hidden cards and then choose
// again.
const (
	UndoOn UndoPolicy = iota
	UndoOff
	UndoNoReveal
)

var undoNames = [...]string{UndoOn: "on", UndoOff: "off", UndoNoReveal: "no_reveal"}

// String returns "on", "off" or "no_reveal".
func (u UndoPolicy) String() string {
	if int(u) < len(undoNames) {
		return undoNames[u]
	}
	return fmt.Sprintf("UndoPolicy(%d)", uint8(u))
}

// ParseUndoPolicy parses "on", "off" or "no_reveal".
func ParseUndoPolicy(s string) (UndoPolicy, error) {
	for i, n := range undoNames {
		if s == n {
			return UndoPolicy(i), nil
		}
	}
	return 0, fmt.Errorf("%w: undo %q: want on, off or no_reveal", ErrBadRules, s)
}

// MarshalText returns the policy's name.
func (u UndoPolicy) MarshalText() ([]byte, error) { return []byte(u.String()), nil }

// UnmarshalText parses a policy's name.
func (u *UndoPolicy) UnmarshalText(b []byte) error {
	v, err := ParseUndoPolicy(string(b))
	*u = v
	return err
}

// A Scoring is one of the scoring systems of the rule book.
type Scoring uint8

// The scoring systems: the classic Windows table (timed in matches), Vegas
// (a 52-point buy-in, 5 points a card on the foundations) and none.
const (
	ScoringStandard Scoring = iota
	ScoringVegas
	ScoringNone
)

var scoringNames = [...]string{ScoringStandard: "standard", ScoringVegas: "vegas", ScoringNone: "none"}

// String returns "standard", "vegas" or "none".
func (s Scoring) String() string {
	if int(s) < len(scoringNames) {
		return scoringNames[s]
	}
	return fmt.Sprintf("Scoring(%d)", uint8(s))
}

// ParseScoring parses "standard", "vegas" or "none".
func ParseScoring(s string) (Scoring, error) {
	for i, n := range scoringNames {
		if s == n {
			return Scoring(i), nil
		}
	}
	return 0, fmt.Errorf("%w: scoring %q: want standard, vegas or none", ErrBadRules, s)
}

// MarshalText returns the scoring's name.
func (s Scoring) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText parses a scoring's name.
func (s *Scoring) UnmarshalText(b []byte) error {
	v, err := ParseScoring(string(b))
	*s = v
	return err
}

// Rules are the options of one game. Every combination of valid values works,
// except that Whitehead is played in draw 1 with one pass only. The zero
// value is not valid (Draw must be 1 or 3): start from DefaultRules or
// DefaultRulesFor.
type Rules struct {
	// Draw is how many cards D turns: 1 or 3.
	Draw int `json:"draw"`
	// Passes is how many times the player may go through the stock: 1 (no
	// recycle), 3, or 0 for unlimited.
	Passes int `json:"passes"`
	// FoundationToTableau allows Fs-Tn moves.
	FoundationToTableau bool `json:"foundation_to_tableau"`
	// Undo is the undo policy.
	Undo UndoPolicy `json:"undo"`
	// Scoring is the scoring system.
	Scoring Scoring `json:"scoring"`
	// Game is the variant; its zero value, Klondike, is left out of the
	// JSON, so Klondike's rules read and write as they always did.
	Game Variant `json:"game,omitempty"`
}

// ErrBadRules is wrapped by every error of Rules.Validate and the option parsers.
var ErrBadRules = errors.New("bad rules")

// DefaultRules returns the rule book's defaults for solo play: draw 3,
// unlimited passes, foundation-to-tableau allowed, undo on, standard scoring.
// Matches use UndoNoReveal instead.
func DefaultRules() Rules {
	return Rules{Draw: 3, Passes: 0, FoundationToTableau: true, Undo: UndoOn, Scoring: ScoringStandard}
}

// DefaultRulesFor returns the solo defaults of a variant: DefaultRules with
// the variant set and, where the game is played that way, its own draw and
// passes: Thumb and Pouch and Whitehead draw one card with no redeal (the
// only way Whitehead is played). Double Klondike keeps Klondike's defaults.
func DefaultRulesFor(v Variant) Rules {
	r := DefaultRules()
	r.Game = v
	if v == ThumbAndPouch || v == Whitehead {
		r.Draw, r.Passes = 1, 1
	}
	return r
}

// DefaultPassesFor is DefaultPasses for a variant: Whitehead always has one
// pass; the others as DefaultPasses.
func DefaultPassesFor(v Variant, draw int, s Scoring) int {
	if v == Whitehead {
		return 1
	}
	return DefaultPasses(draw, s)
}

// DefaultPasses returns the number of passes a game has when none is set
// explicitly: unlimited, except in Vegas scoring, where it is 1 in draw 1 and 3
// in draw 3.
func DefaultPasses(draw int, s Scoring) int {
	if s == ScoringVegas {
		if draw == 1 {
			return 1
		}
		return 3
	}
	return 0
}

// Validate reports the first option that is out of range.
func (r Rules) Validate() error {
	switch {
	case r.Draw != 1 && r.Draw != 3:
		return fmt.Errorf("%w: draw %d: want 1 or 3", ErrBadRules, r.Draw)
	case r.Passes != 0 && r.Passes != 1 && r.Passes != 3:
		return fmt.Errorf("%w: passes %d: want 1, 3 or 0 (unlimited)", ErrBadRules, r.Passes)
	case r.Undo > UndoNoReveal:
		return fmt.Errorf("%w: undo policy %d", ErrBadRules, r.Undo)
	case r.Scoring > ScoringNone:
		return fmt.Errorf("%w: scoring %d", ErrBadRules, r.Scoring)
	case r.Game >= NumVariants:
		return fmt.Errorf("%w: game %d", ErrBadRules, r.Game)
	case r.Game == Whitehead && r.Draw != 1:
		return fmt.Errorf("%w: draw %d: whitehead turns one card at a time (draw 1)", ErrBadRules, r.Draw)
	case r.Game == Whitehead && r.Passes != 1:
		return fmt.Errorf("%w: passes %d: whitehead has no redeal (passes 1)", ErrBadRules, r.Passes)
	}
	return nil
}

// Recycles returns how many times the waste may be turned back into the stock,
// or −1 for no limit.
func (r Rules) Recycles() int {
	if r.Passes == 0 {
		return -1
	}
	return r.Passes - 1
}

// String returns a short description such as "draw 3, passes unlimited,
// foundation-to-tableau on, undo no_reveal, scoring standard", after the
// game's name and a comma for a game other than Klondike.
func (r Rules) String() string {
	passes := "unlimited"
	if r.Passes != 0 {
		passes = fmt.Sprint(r.Passes)
	}
	f2t := "on"
	if !r.FoundationToTableau {
		f2t = "off"
	}
	game := ""
	if r.Game != Klondike {
		game = r.Game.String() + ", "
	}
	return fmt.Sprintf("%sdraw %d, passes %s, foundation-to-tableau %s, undo %s, scoring %s",
		game, r.Draw, passes, f2t, r.Undo, r.Scoring)
}
