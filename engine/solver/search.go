package solver

import "time"

// search is one solve: the position, the rules, the stacks of the
// depth-first search and the transposition table.
type search struct {
	s        state
	gr       *gameRules // the game's rules
	draw     uint8
	recLimit int32 // recycles allowed in all, or −1 for no limit
	f2t      bool

	hist   []applied // moves done on the current path, automatic ones included
	moves  []move    // the move lists of all frames, end to end
	frames []frame
	tt     table

	nodes    int64
	maxNodes int64
	deadline time.Time
	timed    bool
	stop     stopReason

	// stream makes the search incomplete but small (Solvitaire's
	// "streamliners"): every card that can go up goes up at once, from a
	// pile or the waste's top, and no card comes back down. A win it finds
	// is a win; running out of positions proves nothing.
	stream bool

	// jitter, when not zero, adds a pseudo-random amount below it to each
	// move's priority, drawn from rng: restarts try other orders.
	jitter int16
	rng    uint64

	// relaxed marks the relaxed game's search (see relax), which runs no
	// beams: a relaxed win decides nothing but in draw 1 with limited
	// passes, and only when its line keeps to them, so the beams' share
	// of the budget is better spent on the relaxed game's proof.
	relaxed bool

	// pending marks a search stopped by its budget before it could expand
	// the position on top of hist (reached by the moves from pendBase, with
	// obligation pendOb): resume expands it first.
	pending  bool
	pendBase int
	pendOb   oblig
	// begun marks a search that run has started (reset clears it).
	begun bool

	// tp caches the lists of talonPositions.
	tp tpCache

	// bb holds beam's buffers from one beam to the next.
	bb beamBufs

	opts searchOpts
}

// searchOpts switches parts of the search off or checks them, for the
// tests; the zero value is the solver as it plays.
type searchOpts struct {
	// ref switches off every reduction but the plainest (aces and twos go
	// up at once, all piles alike): a slow reference for tests.
	ref bool

	// noTwins switches off the twin-stack reduction: the plain Zobrist
	// terms, and every part of a run may move.
	noTwins bool

	// phases, when not nil, replaces schedule; it also leaves out the
	// relaxed search (see relax), so that the search alone is tested.
	phases *[]phase

	// noRelax leaves out the relaxed search.
	noRelax bool

	// noSeenChild makes every child go through enter: seenChild must not
	// change the search.
	noSeenChild bool

	// checkSeen, when not nil, makes every move that seenChild skips go
	// through enter as well, and counts there those enter would not have
	// skipped (the search then differs after a wrong one).
	checkSeen *seenCheck

	// fullGen makes gen build every move and filter them by the
	// obligation, without skipping the parts the obligation rules out:
	// the lists must come out the same.
	fullGen bool
}

// seenCheck counts what searchOpts.checkSeen finds: the children seenChild
// skipped, and among them those that enter would have searched.
type seenCheck struct {
	skips, wrong int
}

// A stopReason tells why a search stopped: running (it has not, or it ran
// out of positions), won, or cut by the node budget, the clock or the
// table's size.
type stopReason uint8

const (
	running stopReason = iota
	stopWon
	stopNodes
	stopTime
	stopMemory
)

// frame is one position on the search path: its move list moves[start:end],
// the next to try, and the height of hist when the move into it began.
type frame struct {
	start, end, next int32
	histBase         int32
	ob               oblig // the position's obligation
}

// twins reports whether the twin-stack reduction is on: positions that
// differ only by which of two twins (cards of one rank and colour, face up
// or face down) carries which stack are one, and a part of a run moves off
// a face-up card only when that card goes up at once (docs/solver.md,
// "Twin stacks"). It holds in Klondike only.
func (x *search) twins() bool { return x.gr.twins && !x.opts.ref && !x.opts.noTwins }

// undoTo takes back moves until hist has n of them.
func (x *search) undoTo(n int) {
	for len(x.hist) > n {
		a := &x.hist[len(x.hist)-1]
		x.s.undo(a)
		x.hist = x.hist[:len(x.hist)-1]
	}
}

// budgetCheckEvery is how many nodes pass between looks at the clock.
const budgetCheckEvery = 1024

// expand counts a new node and pushes its frame; it reports false when the
// budget stops the search.
func (x *search) expand(histBase int, ob oblig) bool {
	if x.maxNodes > 0 && x.nodes >= x.maxNodes {
		x.stop = stopNodes
		return false
	}
	x.nodes++
	if x.timed && x.nodes%budgetCheckEvery == 0 && time.Now().After(x.deadline) {
		x.stop = stopTime
		return false
	}
	start := len(x.moves)
	x.moves = x.gen(x.moves, ob)
	x.prefetchChildren(x.moves[start:])
	x.frames = append(x.frames, frame{start: int32(start), end: int32(len(x.moves)), next: int32(start), histBase: int32(histBase), ob: ob})
	return true
}

// prefetchChildren asks for the table slots of the positions that the
// moves ms of the current position lead to (before their safe moves), so
// that the misses of their probes, which enter makes one after the other,
// overlap. It changes nothing but the time (table.prefetch).
func (x *search) prefetchChildren(ms []move) {
	if len(x.tt.keys) < prefetchSlots {
		return
	}
	for _, m := range ms {
		x.tt.prefetch(x.s.hashAfter(m))
	}
}

// start begins a search (depth first or beam) at the current position: its
// safe moves, then the position in the table. It reports false when that
// ends the search: won (stop is stopWon) or already lost (a dead end).
func (x *search) start() bool {
	x.begun = true
	x.doAutos()
	if x.s.home == nCards {
		x.stop = stopWon
		return false
	}
	bit, _ := x.wasteBits()
	x.tt.visit(x.key(), bit, 0)
	return x.opts.ref || !x.deadlocked()
}

// run searches depth first from the current position. When it returns with
// stop == stopWon, hist holds a winning line; with stop == running the whole
// space was searched without a win.
func (x *search) run() {
	x.pending = false
	if !x.start() {
		return
	}
	if !x.expand(0, oblig{}) {
		x.pending, x.pendBase, x.pendOb = true, 0, oblig{}
		return
	}
	x.loop()
}

// resume continues a search that its budget stopped (stopNodes or
// stopTime) where it stopped, under the budget set since (maxNodes,
// deadline): the position whose expansion the budget refused is expanded
// first. It is the same search as one run on the whole budget at once. A
// search not yet begun begins (run).
func (x *search) resume() {
	if !x.begun {
		x.run()
		return
	}
	if x.stop != stopNodes && x.stop != stopTime {
		return
	}
	x.stop = running
	if x.pending {
		if !x.expand(x.pendBase, x.pendOb) {
			return
		}
		x.pending = false
	}
	x.loop()
}

// loop is run's depth-first loop over the frames.
func (x *search) loop() {
	for len(x.frames) > 0 {
		f := &x.frames[len(x.frames)-1]
		if f.next == f.end {
			x.moves = x.moves[:f.start]
			x.undoTo(int(f.histBase))
			x.frames = x.frames[:len(x.frames)-1]
			continue
		}
		m := x.moves[f.next]
		f.next++
		if x.knownChild(m, f.ob) {
			continue
		}
		base := len(x.hist)
		ob, r := x.enter(m, f.ob)
		switch r {
		case enterWon:
			x.stop = stopWon
			return
		case enterFull:
			x.stop = stopMemory
			return
		case enterSkip:
			x.undoTo(base)
			continue
		}
		if !x.expand(base, ob) {
			x.pending, x.pendBase, x.pendOb = true, base, ob
			return
		}
	}
}

// Outcomes of enter.
const (
	enterNew  = iota // a new position to search
	enterSkip        // searched before, dominated or lost: undo and go on
	enterWon         // the game is won: hist holds the line
	enterFull        // the table is full
)

// enter makes move m of the current position (whose obligation is
// parentOb) and what follows it at once (the safe moves; with twin stacks,
// y going up after a part of a run), and reports the new position's
// obligation and what to do with it. The position is recorded in the table
// when it is new. For every outcome but enterWon and enterFull the caller
// undoes to the height hist had before.
func (x *search) enter(m move, parentOb oblig) (oblig, int) {
	var ob oblig
	if !x.opts.ref {
		ob = x.lazyKind(m)
	}
	home := x.s.home
	base := len(x.hist)
	x.hist = append(x.hist, x.s.do(m))
	x.doAutos()
	if x.s.home == nCards {
		return ob, enterWon
	}
	// Moves never make a new leaver (see deadlocked), and a card that
	// comes back down is always at hand; so a position turns
	// deadlocked only when a card it could be built on goes up for good.
	checkDead := !x.opts.ref && !x.f2t && x.s.home > home
	// In the last pass, draws make new leavers of the waste.
	if !x.opts.ref && m.kind == mTalon && x.lastPass() && (m.rec || m.at > x.hist[base].oldW) {
		checkDead = true
	}
	if ob.kind == obPartial && x.s.p[m.from].n != m.at {
		ob = oblig{} // y went up at once: the move was used
	}
	if ob.kind == obPartial && x.twins() && parentOb.kind != obNone {
		// Made to meet the position's obligation: the new position
		// is the old one but for an exchange of twin stacks, free of
		// the obligation (y may go up from it, or stay).
		ob = oblig{}
	}
	if ob.kind == obPartial && x.twins() {
		// With the twin reduction the part of a run moved only so
		// that y goes up (gen makes no other): y goes up now, in the
		// same step. The position between has the key of the one
		// before (y's twin took the stack y carried), so the table
		// would skip it.
		x.hist = append(x.hist, x.s.do(move{kind: mPileUp, from: m.from}))
		x.doAutos()
		if x.s.home == nCards {
			return ob, enterWon
		}
		ob = oblig{}
		checkDead = !x.f2t
	}
	key := x.key()
	bit, dom := x.wasteBits()
	if x.dominated(ob, dom) {
		return ob, enterSkip
	}
	added, full := x.tt.visit(key^ob.hash(), bit, dom)
	if full {
		return ob, enterFull
	}
	if !added || (checkDead && x.deadlocked()) {
		return ob, enterSkip
	}
	return ob, enterNew
}

// reset clears the search's stacks and table for a new run.
func (x *search) reset() {
	x.hist = x.hist[:0]
	x.moves = x.moves[:0]
	x.frames = x.frames[:0]
	x.tt.reset(maxSlots)
	x.stop = running
	x.begun = false
}
