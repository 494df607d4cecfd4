package solver

import (
	"time"

	"klondike/engine"
)

// solveWith is SolveGame with the search's options o.
func solveWith(g *engine.Game, b Budget, o searchOpts) Result {
	if v := g.Rules().Game; !Supports(v) {
		return Result{Verdict: Unknown, Err: unsupported(v)}
	}
	start := time.Now()
	res, x := solveOn(g, b, start, o, false)
	if x != nil {
		x.tt.release()
	}
	res.Elapsed = time.Since(start)
	return res
}

// solveOn solves g from start on, with the options o; relaxed marks the
// relaxed game's solve (see relax). It also returns the search when its
// complete search was cut by the budget, so that the caller may resume it
// (nil otherwise); the caller then releases its table. Every other search
// it made has released its table when it returns.
func solveOn(g *engine.Game, b Budget, start time.Time, o searchOpts, relaxed bool) (_ Result, cut *search) {
	r := g.Rules()
	r.Undo = engine.UndoOff
	text := g.String()
	sim, err := engine.ParseGame(text, r)
	if err != nil {
		return Result{Verdict: Unknown}, nil
	}
	switch sim.Status() {
	case engine.Won:
		return Result{Verdict: Winnable, Moves: []engine.Move{}}, nil
	}
	x := &search{opts: o, relaxed: relaxed}
	defer func() {
		if cut != x {
			x.tt.release()
		}
	}()
	if err := x.load(text, r); err != nil {
		return Result{Verdict: Unknown}, nil
	}
	var usedNodes int64
	var usedTime time.Duration
	var rx *search // the relaxed game's complete search, cut by its share
	if !x.opts.ref && !x.opts.noRelax && x.opts.phases == nil {
		rel, ok, rs := relax(sim, text, r, b, start, o)
		if ok {
			return rel, nil
		}
		usedNodes, usedTime = rel.Nodes, time.Since(start)
		rx = rs
		if rx != nil {
			defer rx.tt.release()
		}
	}
	x.nodes = usedNodes
	x.tt.reset(maxSlots)
	phases := x.gr.phases
	if x.opts.phases != nil {
		phases = *x.opts.phases
	}
	if x.opts.ref {
		phases = nil
	}
	decided, err := x.runPhases(phases, b, start, usedNodes, usedTime, text, r)
	if err != nil {
		return Result{Verdict: Unknown}, nil
	}
	if !decided {
		x.stream, x.jitter = false, 0
		x.timed = b.Time > 0
		x.deadline = start.Add(b.Time)
		if rx == nil {
			x.maxNodes = b.Nodes
			x.run()
		} else if res, ok := interleave(x, rx, sim, text, b); ok {
			return res, nil
		}
	}
	res := Result{Nodes: x.nodes}
	switch x.stop {
	case stopWon:
		moves, ok := x.solution(sim)
		if !ok {
			// Cannot happen unless the solver and the engine disagree on
			// the rules; never claim a win that does not replay.
			return res, nil
		}
		res.Verdict = Winnable
		res.Moves = moves
	case running:
		res.Verdict = Unwinnable
	case stopNodes, stopTime:
		return res, x
	}
	return res, nil
}

// runPhases runs phases, the incomplete searches before the complete one,
// from the position text under rules r, each on its share of the budget b
// on top of what the searches before used (usedNodes, and the time since
// start up to usedTime). It reports true when one of them decided the
// game: won (x.stop is stopWon, hist holds the line) or, not streamlined,
// ran out of positions (x.stop is running: the deal is unwinnable).
// Otherwise the search is back at the position, its table cleared, with
// the nodes of every phase counted.
func (x *search) runPhases(phases []phase, b Budget, start time.Time, usedNodes int64, usedTime time.Duration, text string, r engine.Rules) (decided bool, err error) {
	for _, ph := range phases {
		// A restart on part of the budget: a win it finds is a win; if it
		// runs out of positions, a restart that is not streamlined has
		// proved the deal unwinnable (below); if its budget ends first,
		// the next phase, and then the complete search, start afresh.
		x.stream = ph.stream
		x.jitter = ph.jitter
		x.rng = ph.seed
		x.maxNodes = 0
		if b.Nodes > 0 {
			n := b.Nodes * int64(ph.share) / 1000
			if n == 0 {
				continue // too small a budget to share
			}
			usedNodes = min(usedNodes+n, b.Nodes)
			x.maxNodes = usedNodes
		}
		x.timed = b.Time > 0
		tshare := ph.share
		if ph.beam > 0 {
			tshare *= beamTimeFactor
		}
		usedTime += b.Time * time.Duration(tshare) / 1000
		// The beams' shares of the time may add up to more than the
		// whole (Thumb and Pouch's): none runs past the budget.
		x.deadline = start.Add(min(usedTime, b.Time))
		if ph.beam > 0 && x.relaxed {
			continue // no beams in the relaxed search (see search.relaxed)
		}
		if ph.beam > 0 {
			x.beam(ph.beam)
		} else {
			x.run()
		}
		if x.stop == stopWon {
			return true, nil
		}
		if x.stop == running && !ph.stream && ph.beam == 0 {
			// A phase that is not streamlined makes every move the
			// complete search makes, in another order: running out of
			// positions proves the deal unwinnable as well.
			return true, nil
		}
		nodes := x.nodes
		x.reset()
		if err := x.load(text, r); err != nil {
			return false, err
		}
		x.nodes = nodes
	}
	return false, nil
}

// A phase is an incomplete search run before the complete one, on share
// thousandths of the budget (cumulative: a phase may use what earlier ones
// left).
type phase struct {
	beam   int // width of a beam search (beam.go), or 0 for a depth-first restart
	stream bool
	share  int
	jitter int16
	seed   uint64
}

// schedule is the phases run before the complete search: eight restarts
// on budgets growing by 30% from 2.5 thousandths of the budget,
// alternately streamlined and not, all but the first with the moves'
// order shaken, then two beam searches, of widths 1,000 and 4,000.
// Depth-first search on Klondike has a heavy tail: one wrong early choice
// can hide a win behind millions of positions. Small restarts find the
// easy wins, and prove the small losses, at once; the beams find most of
// the wins that the complete search reaches only after millions of
// positions, which restarts do not (docs/solver.md, "Beam search").
// Restarts are kept small because larger ones find no more wins and take
// nodes from the proofs.
var schedule = func() []phase {
	var out []phase
	share := 2.5
	for i := range 8 {
		ph := phase{stream: i%2 == 1, share: int(share), seed: uint64(i + 1)}
		if i > 0 {
			ph.jitter = 1000
		}
		out = append(out, ph)
		share *= 1.3
	}
	return append(out, phase{beam: 1000, share: 25}, phase{beam: 4000, share: 50})
}()

// pouchSchedule is Thumb and Pouch's schedule: the same eight restarts,
// then three beam searches, of widths 300, 1,000 and 4,000, on half of the
// budget in all. Nearly every deal of that game is won, many of them only
// by a beam, and most proofs are short: its beams get the budget that
// Klondike's proofs need (docs/solver.md, "Thumb and Pouch").
var pouchSchedule = append(schedule[:8:8], phase{beam: 300, share: 40}, phase{beam: 1000, share: 150}, phase{beam: 4000, share: 300})

// beamTimeFactor multiplies a beam's share of a time budget: a beam's node
// costs several depth-first ones (every child of a position is made,
// scored and copied, and each level sorted), and a beam cut short finds
// nothing.
const beamTimeFactor = 3
