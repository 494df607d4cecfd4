package solver

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"klondike/engine"
)

// A Verdict is what the solver found out about a position.
type Verdict int

// The verdicts.
const (
	// Unknown: the budget ran out (or the input was not valid) before the
	// solver found a win or searched every position.
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
}

// Solve solves deal d under rules r from its opening position. The rules'
// undo policy and scoring make no difference. An invalid deal or invalid
// rules give Unknown.
func Solve(d engine.Deal, r engine.Rules, b Budget) Result {
	g, err := engine.NewGame(d, r)
	if err != nil {
		return Result{Verdict: Unknown}
	}
	return SolveGame(g, b)
}

// SolveGame solves g's current position under its rules, seeing every card:
// the face-down ones and the order of the stock. It is for verification and
// hints outside a race, never for a player during one. The moves of a
// Winnable result continue g from where it stands (for a game that has
// already ended, from a game in the same position still being played).
// SolveGame does not change g.
func SolveGame(g *engine.Game, b Budget) Result {
	start := time.Now()
	res := solve(g, b, start)
	res.Elapsed = time.Since(start)
	return res
}

func solve(g *engine.Game, b Budget, start time.Time) Result {
	return solveAt(g, b, start, nil)
}

// solveWith is SolveGame with a hook that sets options of the search (tests).
func solveWith(g *engine.Game, b Budget, set func(*search)) Result {
	start := time.Now()
	res := solveAt(g, b, start, set)
	res.Elapsed = time.Since(start)
	return res
}

func solveAt(g *engine.Game, b Budget, start time.Time, set func(*search)) Result {
	res, x := solveOn(g, b, start, set)
	if x != nil {
		x.tt.release()
	}
	return res
}

// solveOn is solveAt that also returns the search when its complete search
// was cut by the budget, so that the caller may resume it (nil otherwise);
// the caller then releases its table. Every other search it made has
// released its table when it returns.
func solveOn(g *engine.Game, b Budget, start time.Time, set func(*search)) (_ Result, cut *search) {
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
	x := &search{}
	defer func() {
		if cut != x {
			x.tt.release()
		}
	}()
	if err := x.load(text, r); err != nil {
		return Result{Verdict: Unknown}, nil
	}
	if set != nil {
		set(x)
		if !x.twins() {
			if err := x.load(text, r); err != nil {
				return Result{Verdict: Unknown}, nil
			}
		}
	}
	var usedNodes int64
	var usedTime time.Duration
	var rx *search // the relaxed game's complete search, cut by its share
	if !x.ref && !x.noRelax && x.phases == nil {
		rel, ok, rs := relax(sim, text, r, b, start, set)
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
	phases := schedule
	if x.phases != nil {
		phases = *x.phases
	}
	if x.ref {
		phases = nil
	}
	exhausted := false
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
		x.deadline = start.Add(usedTime)
		if ph.beam > 0 && x.relaxed {
			continue // no beams in the relaxed search (see search.relaxed)
		}
		if ph.beam > 0 {
			x.beam(ph.beam)
		} else {
			x.run()
		}
		if x.stop == stopWon {
			break
		}
		if x.stop == running && !ph.stream && ph.beam == 0 {
			// A phase that is not streamlined makes every move the
			// complete search makes, in another order: running out of
			// positions proves the deal unwinnable as well.
			exhausted = true
			break
		}
		nodes := x.nodes
		x.reset()
		if err := x.load(text, r); err != nil {
			return Result{Verdict: Unknown}, nil
		}
		x.nodes = nodes
	}
	if x.stop != stopWon && !exhausted {
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
// unlimited passes. set, the tests' options, applies to it too (a solve
// without twin stacks is one throughout).
func relax(sim *engine.Game, text string, r engine.Rules, b Budget, start time.Time, set func(*search)) (Result, bool, *search) {
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
	rset := func(x *search) {
		if set != nil {
			set(x)
		}
		x.relaxed = true
	}
	res, rx := solveOn(g, rb, start, rset)
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
// eight times the strict one's turns: most deals left undecided there
// are lost already in the relaxed game, whose proof is the shorter (at
// 2,200,000 nodes a deal, deals 1-3,000 and 3,001-6,000: draw 1 with
// three passes 14 and 26 unknown with equal turns, 11 and 20 with eight
// times; draw 3 unlimited 19 and 24, 16 and 21; docs/solver.md,
// "Interleaving").
const (
	interleaveSlice = 1 << 14
	relaxSlice      = 8 * interleaveSlice
)

// interleave runs the complete search x (whose nodes count those of every
// search before it) and the relaxed game's complete search rx, cut by its
// share of the budget, in turns of interleaveSlice and relaxSlice nodes, until one of
// them decides the game or the budget runs out. x's stop and nodes then
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

// load sets the position from the engine's text form and the rules.
func (x *search) load(text string, r engine.Rules) error {
	f := strings.Fields(text)
	if len(f) != 5 {
		return fmt.Errorf("solver: want 5 fields in %q", text)
	}
	cards := func(s string) ([]uint8, error) {
		out := make([]uint8, 0, len(s)/2)
		for i := 0; i+2 <= len(s); i += 2 {
			c, err := engine.ParseCard(s[i : i+2])
			if err != nil {
				return nil, err
			}
			out = append(out, uint8(c.Index()))
		}
		return out, nil
	}
	piles := strings.Split(f[0], "/")
	if len(piles) != nPiles {
		return fmt.Errorf("solver: want 7 piles in %q", text)
	}
	s := &x.s
	*s = state{}
	for i, ps := range piles {
		downS, upS, _ := strings.Cut(ps, "|")
		down, err := cards(downS)
		if err != nil {
			return err
		}
		up, err := cards(upS)
		if err != nil {
			return err
		}
		p := &s.p[i]
		p.n = uint8(copy(p.c[:], down))
		p.down = p.n
		p.n += uint8(copy(p.c[p.n:], up))
	}
	wasteS, stockS, _ := strings.Cut(f[1], "|")
	waste, err := cards(wasteS)
	if err != nil {
		return err
	}
	stock, err := cards(stockS)
	if err != nil {
		return err
	}
	s.w = uint8(copy(s.t[:], waste))
	s.tn = s.w + uint8(copy(s.t[s.w:], stock))
	for su := range 4 {
		if ch := f[2][su]; ch != '-' {
			s.f[su] = uint8(strings.IndexByte("A23456789TJQK", ch) + 1)
			s.home += int32(s.f[su])
		}
	}
	rec, err := strconv.Atoi(f[3])
	if err != nil {
		return err
	}
	s.rec = int32(rec)
	s.zc = &zCardTwin
	if !x.twins() {
		s.zc = &zCard
	}
	s.rehash()
	x.draw = uint8(r.Draw)
	x.recLimit = int32(r.Recycles())
	x.f2t = r.FoundationToTableau
	return nil
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

// schedule is the phases run before the complete search: restarts on
// budgets growing by 30% from 0.2% of the budget (together 5.7% of it),
// alternately streamlined and not, all but the first with the moves'
// order shaken, then two beam searches, of widths 1,000 (2.5% of the
// budget) and 4,000 (5%). Depth-first search on Klondike has a heavy
// tail: one wrong early choice can hide a win behind millions of
// positions. Small restarts find the easy wins, and prove the small
// losses, at once; the beams find most of the wins that the complete
// search reaches only after millions of positions, which restarts do not
// (docs/solver.md, "Beam search"). Larger restarts (a quarter of the
// budget, before December 2026) found no more wins and took nodes from
// the proofs ("Interleaving").
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

// beamTimeFactor multiplies a beam's share of a time budget: a beam's node
// costs two to three times a depth-first one (every child of a position is
// made, scored and copied, and each level sorted), and a beam cut short
// finds nothing. With 2 s a deal the beams have 150 and 300 ms.
const beamTimeFactor = 3

// reset clears the search's stacks and table for a new run.
func (x *search) reset() {
	x.hist = x.hist[:0]
	x.moves = x.moves[:0]
	x.frames = x.frames[:0]
	x.tt.reset(maxSlots)
	x.stop = running
	x.begun = false
}

// maxDrawsToReach bounds the D and R needed to bring a talon card to the
// top: through the rest of one pass and the whole of the next.
const maxDrawsToReach = 2*talonMax + 2

// solution turns the winning line in hist into engine moves, playing them
// on sim (a game in the position the search started from) and checking each.
// It reports false if the engine refuses one or the line does not win.
func (x *search) solution(sim *engine.Game) ([]engine.Move, bool) {
	out := make([]engine.Move, 0, 2*len(x.hist))
	play := func(m engine.Move) bool {
		if _, err := sim.Apply(m); err != nil {
			return false
		}
		out = append(out, m)
		return true
	}
	for _, a := range x.hist {
		m := a.m
		var em engine.Move
		switch m.kind {
		case mPileUp:
			em = engine.PileUp(int(m.from) + 1)
		case mPilePile:
			em = engine.PileToPile(int(m.from)+1, int(m.to)+1, 0)
		case mTalon:
			for i := 0; sim.WasteSize() != int(m.at); i++ {
				if i > maxDrawsToReach {
					return nil, false
				}
				step := engine.DrawMove()
				if sim.StockSize() == 0 {
					step = engine.RecycleMove()
				}
				if !play(step) {
					return nil, false
				}
			}
			em = engine.WasteUp()
			if m.to != toFound {
				em = engine.WasteToPile(int(m.to) + 1)
			}
		case mFoundDn:
			em = engine.FoundationDown(engine.Suit(m.from), int(m.to)+1)
		}
		if !play(em) {
			return nil, false
		}
	}
	return out, sim.Status() == engine.Won
}
