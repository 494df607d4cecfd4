package solver

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"klondike/engine"
)

// ErrUnsupportedGame is the error of a solve or a hint asked for a game
// the solver does not play (see Supports): the Result's Err wraps it,
// naming the game.
var ErrUnsupportedGame = errors.New("the solver does not play this game yet")

// Supports reports whether the solver plays game v: Klondike and Thumb and
// Pouch. For Whitehead and Double Klondike it has no solver yet: Solve,
// SolveGame and Hint answer Unknown with ErrUnsupportedGame, so a server
// offers neither winnable deals nor hints for them.
func Supports(v engine.Variant) bool { return rulesOf(v) != nil }

// unsupported returns the error for game v, which the solver does not play.
func unsupported(v engine.Variant) error { return fmt.Errorf("%v: %w", v, ErrUnsupportedGame) }

// A Verdict is what the solver found out about a position.
type Verdict int

// The verdicts.
const (
	// Unknown: the budget ran out before the solver found a win or
	// searched every position, or the solver did not search (Result.Err
	// says why: an invalid input, or a game it does not play).
	Unknown Verdict = iota
	// Winnable: Result.Moves wins the game.
	Winnable
	// Unwinnable: every position reachable from the start was searched and
	// none leads to a win.
	Unwinnable
)

var verdictNames = [...]string{Unknown: "unknown", Winnable: "winnable", Unwinnable: "unwinnable"}

// String returns "winnable", "unwinnable" or "unknown".
func (v Verdict) String() string {
	if v >= 0 && int(v) < len(verdictNames) {
		return verdictNames[v]
	}
	return "Verdict(" + strconv.Itoa(int(v)) + ")"
}

// MarshalText returns the verdict's name.
func (v Verdict) MarshalText() ([]byte, error) { return []byte(v.String()), nil }

// A Budget bounds one solve. A zero field sets no limit on that axis; with
// both zero the search runs until it decides (which can take very long on
// a few deals), so callers normally set at least one.
//
// Nodes is the deterministic bound: the same position, rules and node
// budget always give the same Result (but Elapsed). Time is checked every
// 1024 nodes, so where a time budget cuts depends on the machine's speed.
type Budget struct {
	Nodes int64         // positions the search may expand
	Time  time.Duration // wall-clock time
}

// A Result is the outcome of a solve.
type Result struct {
	Verdict Verdict
	// Moves is, for Winnable, a winning line from the position solved: moves
	// of the notation (D R W-Tn W-F Tn-F Tn-Tm Fs-Tn, never U) that the
	// engine accepts one after the other and that end with the game won.
	// It is nil for the other verdicts.
	Moves []engine.Move
	// Nodes is how many positions the search expanded.
	Nodes int64
	// Elapsed is the wall-clock time the solve took.
	Elapsed time.Duration
	// Err says why the solver did not search, with Verdict Unknown: a
	// game it does not play (wrapping ErrUnsupportedGame), or for Solve a
	// deal or rules the engine refuses. It is nil when it searched.
	Err error
}

// Solve solves deal d under rules r from its opening position. The rules'
// undo policy and scoring make no difference. An invalid deal or invalid
// rules, or a game the solver does not play (Supports), give Unknown with
// the reason in Err.
func Solve(d engine.Deal, r engine.Rules, b Budget) Result {
	if !Supports(r.Game) {
		return Result{Verdict: Unknown, Err: unsupported(r.Game)}
	}
	g, err := engine.NewGame(d, r)
	if err != nil {
		return Result{Verdict: Unknown, Err: err}
	}
	return SolveGame(g, b)
}

// SolveGame solves g's current position under its rules, seeing every card:
// the face-down ones and the order of the stock. It is for verification and
// hints outside a race, never for a player during one. The moves of a
// Winnable result continue g from where it stands (for a game that has
// already ended, from a game in the same position still being played).
// SolveGame does not change g. For a game the solver does not play
// (Supports) it answers Unknown with the reason in Err.
func SolveGame(g *engine.Game, b Budget) Result {
	return solveWith(g, b, searchOpts{})
}
