// Package solver decides Klondike and Thumb and Pouch positions with full
// information (the "thoughtful" game): it sees the face-down cards and the
// order of the stock, so it is for checking deals and for hints outside a
// race, never for a player during one. It handles every rule combination
// of the engine for those games: draw 1 or 3, 1, 3 or unlimited passes,
// foundation-to-tableau on or off. Whitehead and Double Klondike it does
// not play yet: [Supports] says which games it plays, and a solve or hint
// of another game answers Unknown with [ErrUnsupportedGame].
//
//	res := solver.Solve(engine.NumberedDeal(42), rules, solver.Budget{Time: 2 * time.Second})
//	switch res.Verdict {
//	case solver.Winnable:   // res.Moves wins: replay it with Game.Apply
//	case solver.Unwinnable: // every reachable position was searched
//	case solver.Unknown:    // the budget ran out first
//	}
//
// A winnable verdict comes with a line of notation moves (D R W-Tn W-F Tn-F
// Tn-Tm Fs-Tn, never U) that the solver has already replayed through the
// engine to a won game. An unwinnable verdict means the search ran to the
// end with no budget or memory cut; the reductions it relies on are sound
// (docs/solver.md argues each one and says how the tests check them).
// Results are deterministic for the same position, rules and node budget;
// a time budget cuts wherever the clock says.
//
// [Hint] gives the next move of a winning line for solo practice; like
// everything here it sees every card, so it must never be offered in a
// competitive round:
//
//	h := solver.Hint(g, solver.Budget{Nodes: 1_000_000, Time: time.Second})
//	if h.Verdict == solver.Winnable && h.Move.Kind != engine.NoMove {
//		fmt.Println("try", h.Move) // keep h.Line while the player follows it
//	}
//
// The search is depth first over the solver's own compact copy of the
// position, with safe moves to the foundations made automatically, the
// stock folded into moves that draw to a card and play it, moves whose only
// use is the next move made only together with it, a transposition table
// that ignores the order of the piles and lets a waste position that
// reaches more talon cards stand for one that reaches fewer, a dead-end
// test, short restarts in other move orders and two beam searches (level
// by level, keeping the positions that look furthest along) before the
// complete search, and a relaxed game (draw 1 with unlimited passes, whose loss proves the
// real game's) whose complete search takes turns with the real one.
// docs/solver.md describes the algorithm and the figures it reaches.
package solver
