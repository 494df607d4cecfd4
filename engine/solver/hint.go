package solver

import "klondike/engine"

// A HintResult is the answer of Hint.
type HintResult struct {
	// Move is the next move of a winning line from the game's position. It
	// is set only when Verdict is Winnable and the game is not already won;
	// otherwise it is the zero Move (engine.NoMove).
	Move engine.Move
	// Line is, for Winnable, the whole winning line that Move starts (the
	// moves of Result.Moves); nil otherwise.
	Line []engine.Move
	// Verdict is the solver's verdict on the game's position: Winnable
	// (Move leads on to a win), Unwinnable (no line wins from here: the
	// player may as well resign) or Unknown (the budget ran out).
	Verdict Verdict
	// Nodes is how many positions the search expanded.
	Nodes int64
	// Err says why there is no verdict, with Verdict Unknown: a game the
	// solver does not play (wrapping ErrUnsupportedGame; see Supports). It
	// is nil when the solver searched.
	Err error
}

// Hint returns the next move of a winning line from g's current position,
// for solo practice. It searches within the budget b and does not change g.
// For a game the solver does not play (Supports) it answers Unknown with
// ErrUnsupportedGame in Err.
//
// Hint uses full information: it sees the face-down cards and the order of
// the stock, which the player cannot. It must therefore never be offered in
// a competitive round, and a game in which a hint was asked for is a game
// played with help: the caller marks it so (for instance, keeps it off any
// leaderboard).
//
// Every hinted move keeps the game winnable: Move is the first move of Line,
// which the engine replayed to a win. Each call solves afresh, though, and a
// fresh solve from the next position may choose another line; a player who
// asks before every move could be sent round the stock in circles (D, D, …
// towards one card, then towards another). So a caller that gives hints
// move after move keeps Line: while the player plays the line's moves in
// order, the next hint is the line's next move, with no new search; only
// when the player leaves the line does it call Hint again.
//
//	h := solver.Hint(g, solver.Budget{Nodes: 1_000_000, Time: time.Second})
//	if h.Verdict == solver.Winnable && h.Move.Kind != engine.NoMove {
//		fmt.Println("try", h.Move) // such as T6-F
//	}
func Hint(g *engine.Game, b Budget) HintResult {
	res := SolveGame(g, b)
	h := HintResult{Verdict: res.Verdict, Nodes: res.Nodes, Err: res.Err}
	if res.Verdict == Winnable && len(res.Moves) > 0 && g.Status() == engine.Playing {
		h.Move = res.Moves[0]
		h.Line = res.Moves
	}
	return h
}
