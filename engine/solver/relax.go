package solver

import (
	"time"

	"klondike/engine"
)

// relaxShare is the thousandths of a solve's budget that the relaxed search
// takes before the strict game's restarts (see relax); if its complete
// search is cut there, it goes on in turns with the strict game's complete
// search (interleave).
const relaxShare = 300

// relax tries the deal in the easiest variant first: draw 1 with unlimited
// passes, whose moves include those of every other variant with the same
// foundation-to-tableau rule (a talon card that draw 3 or a limited pass
// can reach, draw 1 with unlimited passes can reach at any time, and the
// rest of the game is the same; docs/solver.md, "The relaxed search"). If
// that game cannot be won, neither can this one; if it is won in draw 1 by
// a line that also keeps to this game's passes, this game is won by it.
// relax reports true with the verdict when one of these decides the game;
// otherwise it returns the nodes it used (Result.Nodes) for the caller to
// count against the budget, and the relaxed game's complete search when
// the budget cut it, for interleave to go on with (nil when it was won or
// stopped otherwise). It takes relaxShare of the budget, and runs only
// when the budget is bounded and the game is not itself draw 1 with
// unlimited passes. The options o apply to it too (a solve without twin
// stacks is one throughout).
func relax(sim *engine.Game, text string, r engine.Rules, b Budget, start time.Time, o searchOpts) (Result, bool, *search) {
	if r.Draw == 1 && r.Passes == 0 || b.Nodes <= 0 && b.Time <= 0 {
		return Result{}, false, nil
	}
	rr := r
	rr.Draw, rr.Passes = 1, 0
	g, err := engine.ParseGame(text, rr)
	if err != nil {
		return Result{}, false, nil
	}
	rb := Budget{Nodes: b.Nodes * relaxShare / 1000, Time: b.Time * relaxShare / 1000}
	if b.Nodes > 0 && rb.Nodes == 0 {
		return Result{}, false, nil // too small a budget to share
	}
	res, rx := solveOn(g, rb, start, o, true)
	switch res.Verdict {
	case Unwinnable:
		return Result{Verdict: Unwinnable, Nodes: res.Nodes}, true, nil
	case Winnable:
		if r.Draw == 1 && wins(sim, res.Moves) {
			return Result{Verdict: Winnable, Moves: res.Moves, Nodes: res.Nodes}, true, nil
		}
	}
	return Result{Nodes: res.Nodes}, false, rx
}

// interleaveSlice is the nodes the strict game's complete search makes in
// its turn in interleave, relaxSlice those of the relaxed game's (fewer in
// the last turn, where the budget ends). Either search can end the solve:
// the relaxed one by a proof, often several times shorter than the strict
// game's, the strict one by a win or a proof. The relaxed search gets
// the longer turns: most deals still undecided by then are lost already
// in the relaxed game, whose proof is the shorter.
const (
	interleaveSlice = 1 << 14
	relaxSlice      = 8 * interleaveSlice
)

// interleave runs the complete search x (whose nodes count those of every
// search before it) and the relaxed game's complete search rx, cut by its
// share of the budget, in turns of interleaveSlice and relaxSlice nodes,
// until one of them decides the game or the budget runs out. x's stop and nodes then
// tell the outcome, as if it had run alone (its nodes count rx's), unless
// rx decided the game: then interleave reports true with the result.
func interleave(x, rx *search, sim *engine.Game, text string, b Budget) (Result, bool) {
	extra := int64(0) // rx's nodes made here
	strict := func(limit int64) {
		x.maxNodes = limit
		x.resume() // x.run the first time
	}
	rx.timed, rx.deadline = x.timed, x.deadline
	for rx != nil {
		if b.Nodes > 0 && x.nodes+extra >= b.Nodes {
			x.nodes += extra
			x.stop = stopNodes
			return Result{}, false
		}
		limit := x.nodes + interleaveSlice
		if b.Nodes > 0 {
			limit = min(limit, b.Nodes-extra)
		}
		strict(limit)
		if x.stop != stopNodes || b.Nodes > 0 && x.nodes+extra >= b.Nodes {
			x.nodes += extra
			return Result{}, false
		}
		before := rx.nodes
		rx.maxNodes = rx.nodes + relaxSlice
		if b.Nodes > 0 {
			rx.maxNodes = min(rx.maxNodes, rx.nodes+b.Nodes-x.nodes-extra)
		}
		rx.resume()
		extra += rx.nodes - before
		switch rx.stop {
		case running: // the relaxed game is lost: so is this one
			return Result{Verdict: Unwinnable, Nodes: x.nodes + extra}, true
		case stopWon:
			if sim.Rules().Draw == 1 {
				rr := sim.Rules()
				rr.Passes = 0
				if rsim, err := engine.ParseGame(text, rr); err == nil {
					if moves, ok := rx.solution(rsim); ok && wins(sim, moves) {
						return Result{Verdict: Winnable, Moves: moves, Nodes: x.nodes + extra}, true
					}
				}
			}
			rx = nil // won: it can prove nothing
		case stopTime:
			x.nodes += extra
			x.stop = stopTime
			return Result{}, false
		case stopMemory:
			rx = nil
		}
	}
	// The relaxed search is out: the strict one goes on alone.
	limit := int64(0)
	if b.Nodes > 0 {
		limit = b.Nodes - extra
	}
	strict(limit)
	x.nodes += extra
	return Result{}, false
}

// wins reports whether line, played on a copy of g, wins it under g's rules.
func wins(g *engine.Game, line []engine.Move) bool {
	c := g.Clone()
	for _, m := range line {
		if _, err := c.Apply(m); err != nil {
			return false
		}
	}
	return c.Status() == engine.Won
}
