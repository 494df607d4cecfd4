package solver

import (
	"math/bits"
	"time"
)

// search is one solve: the position, the rules, the stacks of the
// depth-first search and the transposition table.
type search struct {
	s        state
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

	// ref switches off every reduction but the plainest (aces and twos go
	// up at once, all piles alike): a slow reference for tests.
	ref bool

	// noTwins switches off the twin-stack reduction (tests, measurements):
	// the plain Zobrist terms, and every part of a run may move.
	noTwins bool

	// phases, when not nil, replaces schedule (tests); it also leaves out
	// the relaxed search (see relax), so that the search alone is tested.
	phases *[]phase

	// noRelax leaves out the relaxed search (tests, measurements).
	noRelax bool

	// noSeenChild makes every child through enter (tests: seenChild must
	// not change the search).
	noSeenChild bool
	// checkSeen makes every move that seenChild skips through enter as
	// well, counting in seenWrong those enter would not have skipped
	// (tests; the search then differs after a wrong one).
	checkSeen bool
	seenWrong int
	seenSkips int

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

	// fullGen makes gen build every move and filter them by the
	// obligation, without skipping the parts the obligation rules out
	// (tests: the lists must come out the same).
	fullGen bool

	// relaxed marks the relaxed game's search (see relax), which runs no
	// beams: a relaxed win decides nothing but in draw 1 with limited
	// passes, and only when its line keeps to them, while a beam takes
	// 7.5% of the relaxed share's nodes and, being slower a node, 22.5%
	// of its time. Without them, 10,000 deals at 2 s a deal: draw 1 with
	// three passes 0.72% -> 0.69% unknown, draw 3 unlimited 0.61% -> 0.57%;
	// the same unknown deals of 1-3,000 at 3,300,000 nodes.
	relaxed bool
}

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

// An obligation restricts the moves of a position reached by a lazy move:
// a move whose only use is to expose or to place a card for a later move.
// Any winning line can be reordered so that a lazy move comes right before
// the first move that uses it (the moves in between do not touch what it
// changed), or dropped when nothing does; so the search makes a lazy move
// only when the very next move uses it:
//
//   - obPartial: the top part of a run went from pile i, off card y (now
//     i's top), onto a card z of the same rank and colour. Next, y goes up
//     or a card goes onto y. (A next move that carries y or z on to another
//     pile, with or without the moved part, gives a position that moving
//     those cards first and the part after reaches as well.) With the
//     twin-stack reduction the move is made only when y goes up, and y
//     goes up in the same step, or to meet the position's own obligation,
//     and then the new position has none: no position keeps this one.
//   - obEmpty: a whole run with nothing under it, not headed by a king,
//     left pile i empty. Next, a king goes to an empty pile.
//   - obOnto: a card came to pile j from the talon (in draw 1 with
//     unlimited passes, where every talon card can be reached at any time)
//     or from a foundation. Next, a card goes onto it; after a foundation
//     card, any lazy move may come first (isLazy).
//
// One move can use two lazy moves: a card X brought down from its
// foundation onto a card W uses the move that brought down the card above
// X (X was under it) and the move that brought W (from a foundation or
// the talon, or without twin stacks a part of a run moved off W). Only
// one of the two can come right before it. So a card brought down from a
// foundation may be followed by any lazy move: a winning line then puts
// the lazy moves X's move uses, and those they use in turn, in an order
// that the obligations allow (docs/solver.md, "Lazy moves").
type oblig struct {
	kind uint8
	i, j uint8
	c    uint8 // obOnto: the card that came to pile j
	f2t  bool
}

const (
	obNone uint8 = iota
	obPartial
	obEmpty
	obOnto
)

func (o oblig) hash() uint64 {
	if o.kind == obNone {
		return 0
	}
	// obOnto is keyed by the card, not the pile: positions alike up to
	// piles' places or twin stacks (one key in the table) may hold that
	// card on different piles, and the obligation means the same card.
	j := o.j
	if o.kind == obOnto {
		j = o.c
	}
	v := uint64(o.kind) | uint64(o.i)<<8 | uint64(j)<<16
	if o.f2t {
		v |= 1 << 32
	}
	v = (v + 0x9E3779B97F4A7C15) * 0xBF58476D1CE4E5B9
	return (v ^ v>>29) & variantMask
}

// allows reports whether m, a move of the position, meets the obligation.
func (x *search) allows(o oblig, m move) bool {
	switch o.kind {
	case obPartial:
		if m.kind == mPileUp {
			return m.from == o.i
		}
		return m.to == o.i && !(m.kind == mTalon && m.to == toFound)
	case obEmpty:
		return m.kind != mPileUp && m.to != toFound && x.s.p[m.to].n == 0
	case obOnto:
		if m.kind == mPileUp || (m.kind == mTalon && m.to == toFound) {
			return false
		}
		return m.to == o.j || o.f2t && x.isLazy(m)
	}
	return true
}

// isLazy reports whether m, a move of the position, is itself a lazy
// move: one after which the position has an obligation. A part of a run
// moved off a face-up card is one only without the twin-stack reduction
// (with it, the new position keeps no obligation).
func (x *search) isLazy(m move) bool {
	switch m.kind {
	case mFoundDn:
		return true
	case mTalon:
		return m.to != toFound && x.draw == 1 && x.recLimit < 0
	case mPilePile:
		return m.at == 0 || m.at > x.s.p[m.from].down && !x.twins()
	}
	return false
}

// lazyKind classifies m before it is played: the obligation the position it
// leads to gets, or obNone.
func (x *search) lazyKind(m move) oblig {
	s := &x.s
	switch m.kind {
	case mPilePile:
		p := &s.p[m.from]
		if m.at > p.down {
			return oblig{kind: obPartial, i: m.from, j: m.to}
		}
		if m.at == 0 {
			return oblig{kind: obEmpty, i: m.from, j: m.to}
		}
	case mTalon:
		if m.to != toFound && x.draw == 1 && x.recLimit < 0 {
			return oblig{kind: obOnto, j: m.to, c: s.t[m.at-1]}
		}
	case mFoundDn:
		return oblig{kind: obOnto, i: m.from, j: m.to, c: cardOf(int(s.f[m.from]), m.from), f2t: true}
	}
	return oblig{}
}

// twins reports whether the twin-stack reduction is on: positions that
// differ only by which of two twins (cards of one rank and colour, face up
// or face down) carries which stack are one, and a part of a run moves off
// a face-up card only when that card goes up at once (docs/solver.md,
// "Twin stacks").
func (x *search) twins() bool { return !x.ref && !x.noTwins }

func (x *search) canRecycle() bool { return x.recLimit < 0 || x.s.rec < x.recLimit }

// next reports whether c is the next card of its foundation.
func (x *search) next(c uint8) bool { return x.s.nxt&(1<<c) != 0 }

// safe reports whether c, the next card of its foundation, may go up at once
// without losing a win. The rules are Solvitaire's (Blake & Gent): aces and
// twos always; a card of rank r when both foundations of the other colour
// hold at least r − 2 and the other foundation of its colour at least r − 3
// (then every card that could be built on c can go up itself). Only when
// foundation-to-tableau moves are off is c also safe as soon as both
// foundations of the other colour hold r − 1 (the engine's SafeMove rule):
// with them that rule loses wins, since a card may have to come back down
// a long way.
func (x *search) safe(c uint8) bool {
	r := cRank[c]
	if r <= 2 || x.stream {
		return true
	}
	if x.ref {
		return false
	}
	f := &x.s.f
	var o1, o2 int8
	if cRed[c] {
		o1, o2 = int8(f[0]), int8(f[3])
	} else {
		o1, o2 = int8(f[1]), int8(f[2])
	}
	pa := int8(f[partner(cSuit[c])])
	if o1 >= r-2 && o2 >= r-2 && pa >= r-3 {
		return true
	}
	return !x.f2t && o1 >= r-1 && o2 >= r-1
}

// key returns the position's hash for the transposition table, without
// the waste size (see wasteBits). With a limit on passes the recycles made
// are part of it; without one they make no difference.
func (x *search) key() uint64 { return x.keyOf(x.s.h, x.s.rec) }

// keyOf is key for a position of hash h with rec recycles made.
func (x *search) keyOf(h uint64, rec int32) uint64 {
	if x.recLimit >= 0 {
		return h ^ zRec[rec&63]
	}
	return h
}

// allCards is the set of the 52 cards.
const allCards = 1<<nCards - 1

// allWaste is the bit set of every waste size.
const allWaste = 1<<(talonMax+2) - 1

// cycleBit stands for every waste size of the recycling cycle with
// unlimited passes (see wasteBits).
const cycleBit = 1 << (talonMax + 1)

// wasteBits returns the bit of the waste size for the transposition table,
// and the bits of the waste sizes that dominate it: positions alike but for
// the waste size, from which the draws and recycles reach every talon card
// this one reaches (playing a talon card leads to the same position from
// either). With waste size w of n talon cards in draw d, D reaches
// w, w+d, w+2d, ... and n in this pass, and after a recycle d, 2d, ... and
// n. So a smaller waste size w − kd reaches all that w reaches, and w = n
// reaches the least. With unlimited passes every multiple of d and n lead
// to the same cycle: one bit stands for them all (in draw 1, every waste
// size), and any waste size reaches at least as much.
func (x *search) wasteBits() (bit, dom uint32) { return x.wasteBitsOf(x.s.w, x.s.tn) }

// wasteBitsOf is wasteBits for waste size w of n talon cards.
func (x *search) wasteBitsOf(w, n uint8) (bit, dom uint32) {
	d := x.draw
	if x.ref {
		return 1 << w, 1 << w
	}
	if x.recLimit < 0 && (w%d == 0 || w == n) {
		return cycleBit, allWaste
	}
	if w == n {
		return 1 << w, allWaste
	}
	if d <= 3 {
		return 1 << w, wasteDom[d][w]
	}
	for p := int(w); p >= 0; p -= int(d) {
		dom |= 1 << p
	}
	return 1 << w, dom
}

// wasteDom[d][w] is the set of waste sizes w, w − d, w − 2d, … down to 0.
var wasteDom = func() (t [4][talonMax + 1]uint32) {
	for d := 1; d <= 3; d++ {
		for w := range talonMax + 1 {
			for p := w; p >= 0; p -= d {
				t[d][w] |= 1 << p
			}
		}
	}
	return t
}()

// dominated reports whether a position at least as good as the current one
// (which has obligation ob, and whose waste size is dominated by the waste
// sizes dom) was reached before, other than the same position with the same
// obligation (which visit checks): the same position with no obligation,
// which allows every move; or, with a limit on passes, the same cards with
// fewer recycles made. With fewer recycles made, a waste size that reaches
// the same cards in this pass does, and so does any waste size if this one
// only reaches cards of the recycling cycle (a multiple of the draw, or the
// whole talon), which the spare recycle reaches.
func (x *search) dominated(ob oblig, dom uint32) bool {
	return x.dominatedAt(x.s.h, x.s.rec, x.s.w, ob, dom)
}

// dominatedAt is dominated for a position of hash h, with rec recycles
// made and waste size w.
func (x *search) dominatedAt(h uint64, rec int32, w uint8, ob oblig, dom uint32) bool {
	if x.ref {
		return false
	}
	if ob.kind != obNone && x.tt.seen(x.keyOf(h, rec), dom) {
		return true
	}
	if x.recLimit < 0 || rec == 0 {
		return false
	}
	lower := dom
	if w%x.draw == 0 {
		lower = allWaste
	}
	for r := int32(0); r < rec; r++ {
		k := h ^ zRec[r&63]
		if x.tt.seen(k^ob.hash(), lower) || (ob.kind != obNone && x.tt.seen(k, lower)) {
			return true
		}
	}
	return false
}

// autoMove returns a safe move to a foundation, if there is one: a pile's
// top card, or in draw 1 the waste's top card, or with unlimited passes in
// draw 1 any talon card (all of them can be reached without losing any),
// or in draw 3 the last talon card when taking it loses no other one.
func (x *search) autoMove() (move, bool) {
	s := &x.s
	// The first pile (by index) whose top is the next card of its
	// foundation and safe: the candidates are the next cards that top a
	// pile (at most four).
	best := -1
	for cand := s.nxt & s.tops; cand != 0; cand &= cand - 1 {
		c := uint8(bits.TrailingZeros64(cand))
		if i := int(s.loc[c]); (best < 0 || i < best) && x.safe(c) {
			best = i
		}
	}
	if best >= 0 {
		return move{kind: mPileUp, from: uint8(best)}, true
	}
	if x.stream && s.w > 0 && x.next(s.t[s.w-1]) {
		return move{kind: mTalon, at: s.w, to: toFound}, true
	}
	if s.tn == 0 {
		return move{}, false
	}
	if x.draw != 1 {
		// Draw 3: the last talon card, when the waste is the whole talon
		// or, with unlimited passes, its size is a multiple of the draw.
		// Taking the last card out moves no other talon card, and the
		// waste it leaves (the whole talon again) reaches every card the
		// old one did (see docs/solver.md).
		if s.w == s.tn || x.recLimit < 0 && s.w%x.draw == 0 {
			if c := s.t[s.tn-1]; x.next(c) && x.safe(c) {
				return move{kind: mTalon, at: s.tn, to: toFound}, true
			}
		}
		return move{}, false
	}
	if x.recLimit < 0 {
		if s.nxt&^s.tab == 0 { // else no talon card is the next of its foundation
			return move{}, false
		}
		for i := uint8(0); i < s.tn; i++ {
			if c := s.t[i]; x.next(c) && x.safe(c) {
				return move{kind: mTalon, at: i + 1, rec: i+1 < s.w, to: toFound}, true
			}
		}
	} else if s.w > 0 {
		if c := s.t[s.w-1]; x.next(c) && x.safe(c) {
			return move{kind: mTalon, at: s.w, to: toFound}, true
		}
	}
	return move{}, false
}

// talonPos is a waste size the stock can be brought to, with the draws it
// costs and whether it needs a recycle.
type talonPos struct {
	at    uint8
	draws uint8
	rec   bool
}

// talonPositions lists the waste sizes that D and R can reach, each once,
// with the fewest recycles: the current one, those of the rest of this
// pass, then those of a new pass if a recycle is allowed (later passes
// repeat it).
//
// The list depends only on the talon's size, the waste size, the draw and
// whether a recycle is allowed, so each is built once per search and kept
// in x.tp.
func (x *search) talonPositions() []talonPos {
	s := &x.s
	rec := 0
	if x.canRecycle() {
		rec = 1
	}
	if x.tp.draw != x.draw {
		x.tp.spans = [talonMax + 1][talonMax + 1][2]tpSpan{}
		x.tp.list = x.tp.list[:0]
		x.tp.draw = x.draw
	}
	sp := &x.tp.spans[s.tn][s.w][rec]
	if !sp.set {
		var buf [2 * talonMax]talonPos
		l := x.talonPositionsOf(&buf)
		*sp = tpSpan{off: uint16(len(x.tp.list)), n: uint8(len(l)), set: true}
		x.tp.list = append(x.tp.list, l...)
	}
	return x.tp.list[sp.off : sp.off+uint16(sp.n)]
}

// tpCache keeps the lists of talonPositions, by talon size, waste size and
// whether a recycle is allowed, for one draw: x.tp.list[off:off+n].
type tpCache struct {
	draw  uint8
	spans [talonMax + 1][talonMax + 1][2]tpSpan
	list  []talonPos
}

type tpSpan struct {
	off uint16
	n   uint8
	set bool
}

// talonPositionsOf builds talonPositions' list for the current position.
func (x *search) talonPositionsOf(buf *[2 * talonMax]talonPos) []talonPos {
	s := &x.s
	n, w, d := s.tn, s.w, x.draw
	out := buf[:0]
	if n == 0 {
		return out
	}
	var seen uint32
	if w > 0 {
		out = append(out, talonPos{at: w})
		seen |= 1 << w
	}
	k := uint8(0)
	for p := w; p < n; {
		p = min(p+d, n)
		k++
		out = append(out, talonPos{at: p, draws: k})
		seen |= 1 << p
	}
	if x.canRecycle() {
		for p := uint8(0); p < n; {
			p = min(p+d, n)
			k++
			if seen&(1<<p) == 0 {
				out = append(out, talonPos{at: p, draws: k + 1, rec: true})
			}
		}
	}
	return out
}

// Move priorities: a move with a higher score is tried first.
const (
	scoreReveal      int16 = 1000
	scoreRevealDown  int16 = 10 // per face-down card of the pile
	scoreTalonUp     int16 = 700
	scoreTalonPile   int16 = 600
	scorePartialUp   int16 = 450
	scoreTalonKing   int16 = 400
	scorePileUp      int16 = 350
	scoreEmptyPile   int16 = 150
	scorePartial     int16 = 5
	scoreFoundDown   int16 = 0
	talonDrawPenalty int16 = 0 // per draw or recycle: measured no better than 0
	// limitedRecycle is taken off a talon move that needs a recycle when
	// the passes are limited: a recycle spent is gone for good.
	limitedRecycle int16 = 500
	// limitedDrawPenalty is taken off a talon move for each draw (or
	// recycle) it needs when the passes are limited: the cards it draws
	// past are out of reach until a recycle. Draw 1 with three passes,
	// deals 1-3,000 at 3,300,000 nodes: 27 unknown without it, 21 with 15
	// (23 with 30; on deals 1-1,000, 6 with 60 and 8 with 120); no change
	// in draw 3 with three passes or draw 1 with one (docs/solver.md,
	// "Interleaving").
	limitedDrawPenalty int16 = 15
)

// talonSet returns the set of the talon cards that D and R can bring to
// the top of the waste: those at the waste sizes tps (talonPositions).
// In draw 1 with a recycle left that is every talon card, the cards
// neither on the tableau nor on a foundation, and no list need be read.
func (x *search) talonSet(tps []talonPos) uint64 {
	s := &x.s
	var set uint64
	if x.draw == 1 && x.canRecycle() {
		set = allCards &^ s.tab
		for su := range uint8(4) {
			set &^= (1<<s.f[su] - 1) << (13 * su)
		}
		return set
	}
	for _, tp := range tps {
		set |= 1 << s.t[tp.at-1]
	}
	return set
}

// gen appends the moves of the position, best first.
func (x *search) gen(out []move, ob oblig) []move {
	s := &x.s
	start := len(out)
	empty := -1
	// Where cards can be taken from right now: face-up on the tableau,
	// reachable in the talon, on top of a foundation. A lazy move is made
	// only if a card can use it at once.
	// The face-up cards are s.up, their places s.loc and s.pos, and
	// s.topOf tells the pile a card tops.
	var kingHeads, talonSet, foundTops uint64
	tabUp, tops := s.up, s.tops
	for i := range s.p {
		p := &s.p[i]
		if p.n == 0 {
			if empty < 0 {
				empty = i
			}
			continue
		}
		if p.down > 0 && cRank[p.c[p.down]] == king {
			kingHeads |= 1 << p.c[p.down]
		}
	}
	tps := x.talonPositions()
	talonSet = x.talonSet(tps)
	f2t := x.f2t && !x.stream
	if f2t {
		for su := range uint8(4) {
			if s.f[su] > 0 {
				foundTops |= 1 << cardOf(int(s.f[su]), su)
			}
		}
	}
	avail := tabUp | talonSet | foundTops
	kingReady := (kingHeads | (talonSet|foundTops)&kingSet) != 0

	// With an obligation, gen skips the parts whose moves the obligation
	// never allows (allows, below, still has the last word, so the list is
	// the same as that of every move filtered). After a card came to a pile
	// (obOnto) no card goes up, and a king-headed run that uncovers a card
	// is no lazy move; after a pile was emptied (obEmpty) only moves to an
	// empty pile are allowed, and no tableau-to-tableau move goes to one.
	onlyPile := -1 // obOnto without a lazy move allowed: moves to this pile only
	skipUp := ob.kind == obOnto && !x.fullGen
	skipTab := ob.kind == obEmpty && !x.fullGen
	if ob.kind == obOnto && !ob.f2t && !x.fullGen {
		onlyPile = int(ob.j)
	}
	// Tableau to foundation, and king-headed runs to an empty pile when
	// they uncover a card (all empty piles are alike). None when no pile's
	// top is the next card of its foundation and no king-headed run can
	// go to an empty pile.
	for i := range s.p {
		if skipUp || s.nxt&tops == 0 && (empty < 0 || kingHeads == 0) {
			break
		}
		p := &s.p[i]
		if p.n == 0 {
			continue
		}
		if x.next(p.c[p.n-1]) {
			sc := scorePileUp
			if p.n-1 == p.down && p.down > 0 {
				sc = scoreReveal + scoreRevealDown*int16(p.down)
			}
			out = append(out, move{kind: mPileUp, from: uint8(i), score: sc})
		}
		if empty >= 0 && p.down > 0 && cRank[p.c[p.down]] == king {
			out = append(out, move{kind: mPilePile, from: uint8(i), to: uint8(empty), at: p.down,
				score: scoreReveal + scoreRevealDown*int16(p.down) - 5})
		}
	}
	// Tableau to tableau: onto each pile's top, the two cards that fit, if
	// face up elsewhere (with the cards above them).
	for j := range s.p {
		q := &s.p[j]
		if q.n == 0 || skipTab || onlyPile >= 0 && j != onlyPile || onto[q.c[q.n-1]]&tabUp == 0 {
			continue
		}
		for _, u := range below[q.c[q.n-1]] {
			if tabUp&(1<<u) == 0 || int(s.loc[u]) == j {
				continue
			}
			i := int(s.loc[u])
			p := &s.p[i]
			at := s.pos[u]
			var sc int16
			switch {
			case at == p.down && p.down > 0:
				sc = scoreReveal + scoreRevealDown*int16(p.down)
			case at == p.down:
				if !kingReady && !x.ref {
					continue
				}
				sc = scoreEmptyPile
			case x.next(p.c[at-1]):
				sc = scorePartialUp
			default:
				// With the twin reduction a part of a run only moves to
				// let the card under it go up, or to meet an obligation
				// (a card brought to pile j must be covered): otherwise
				// the position it leads to has the key of this one, and
				// the same obligation, none.
				if x.twins() {
					if ob.kind == obNone {
						continue
					}
				} else if onto[p.c[at-1]]&^(1<<u)&avail == 0 && !x.ref {
					continue
				}
				sc = scorePartial
			}
			out = append(out, move{kind: mPilePile, from: uint8(i), to: uint8(j), at: at, score: sc})
		}
	}
	// Talon to foundation and tableau.
	lazyTalon := x.draw == 1 && x.recLimit < 0 && !x.ref
	// The talon cards that have a move: the next of their foundation, a
	// king when a pile is empty, a card that goes on a pile's top. The
	// others are passed over at once (the lists are up to 24 long).
	var useful uint64
	if len(tps) > 0 {
		useful = s.nxt
		if empty >= 0 {
			useful |= kingSet
		}
		for ts := tops; ts != 0; ts &= ts - 1 {
			useful |= onto[bits.TrailingZeros64(ts)]
		}
		if useful&talonSet == 0 {
			tps = nil // no talon card has a move
		}
	}
	for _, tp := range tps {
		c := s.t[tp.at-1]
		if useful&(1<<c) == 0 {
			continue
		}
		pen := int16(tp.draws) * talonDrawPenalty
		if tp.rec && x.recLimit >= 0 {
			pen += limitedRecycle
		}
		if x.recLimit >= 0 {
			pen += int16(tp.draws) * limitedDrawPenalty
		}
		if x.next(c) {
			out = append(out, move{kind: mTalon, at: tp.at, rec: tp.rec, to: toFound, score: scoreTalonUp - pen})
		}
		if lazyTalon && onto[c]&(tabUp|talonSet|foundTops) == 0 {
			continue
		}
		if cRank[c] == king {
			if empty >= 0 {
				out = append(out, move{kind: mTalon, at: tp.at, rec: tp.rec, to: uint8(empty), score: scoreTalonKing - pen})
			}
			continue
		}
		if aboveSet[c]&tops == 0 {
			continue
		}
		for _, t := range above[c] {
			if j := s.topOf(t); j >= 0 {
				out = append(out, move{kind: mTalon, at: tp.at, rec: tp.rec, to: uint8(j), score: scoreTalonPile - pen})
			}
		}
	}
	// Foundation to tableau, unless the card would go straight back up or
	// nothing could use it.
	if f2t {
		for su := range uint8(4) {
			if s.f[su] == 0 {
				continue
			}
			c := cardOf(int(s.f[su]), su)
			if !x.ref && (x.safeDown(c) || (onto[c]&avail == 0 && s.f[su] < 2)) {
				continue
			}
			if cRank[c] == king {
				if empty >= 0 {
					out = append(out, move{kind: mFoundDn, from: su, to: uint8(empty), score: scoreFoundDown})
				}
				continue
			}
			if aboveSet[c]&tops == 0 {
				continue
			}
			for _, t := range above[c] {
				if j := s.topOf(t); j >= 0 {
					out = append(out, move{kind: mFoundDn, from: su, to: uint8(j), score: scoreFoundDown})
				}
			}
		}
	}
	if ob.kind != obNone {
		k := start
		for _, m := range out[start:] {
			if x.allows(ob, m) {
				out[k] = m
				k++
			}
		}
		out = out[:k]
	}
	ms := out[start:]
	if x.jitter > 0 {
		for i := range ms {
			x.rng ^= x.rng << 13
			x.rng ^= x.rng >> 7
			x.rng ^= x.rng << 17
			ms[i].score += int16(x.rng % uint64(x.jitter))
		}
	}
	// Stable insertion sort by score, best first: the lists are short.
	for i := 1; i < len(ms); i++ {
		m := ms[i]
		j := i
		for j > 0 && ms[j-1].score < m.score {
			ms[j] = ms[j-1]
			j--
		}
		ms[j] = m
	}
	return out
}

// safeDown reports whether c, the top of its foundation, would be sent
// straight back up if it came down: then bringing it down never helps.
//
// safe reads only the foundations of the other three suits, so it gives the
// same answer with c up or down: safeDown is safe.
func (x *search) safeDown(c uint8) bool { return x.safe(c) }

// doAutos plays safe foundation moves until there are none.
func (x *search) doAutos() {
	for {
		m, ok := x.autoMove()
		if !ok {
			return
		}
		x.hist = append(x.hist, x.s.do(m))
	}
}

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
	return x.ref || !x.deadlocked()
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

// seenChild reports, without making m, that enter(m, ·) would skip the
// position m leads to as searched before or dominated: when m sends no
// card up and no safe move follows it, the position after m is known from
// the move alone (state.hashAfter, the waste size and recycles it
// leaves), and so are its obligation and its table entries. The search is
// then the same as with enter alone, without making and taking back a
// move whose position is already in the table, which is what most
// children of a hard search are (TestSeenChildSameSearch). false means
// "not known": enter decides.
func (x *search) seenChild(m move) bool {
	if x.ref {
		return false
	}
	s := &x.s
	w, n, rec := s.w, s.tn, s.rec
	switch m.kind {
	case mPilePile:
		// The card left on top of the source pile (turned over if face
		// down) must not be one that goes up at once; the moved run's
		// head was a pile's top already, and the foundations do not change.
		if m.at > 0 {
			if u := s.p[m.from].c[m.at-1]; x.next(u) && x.safe(u) {
				return false
			}
		}
		if m.at > s.p[m.from].down {
			return false // a part of a run: enter may send y up in the same step
		}
	case mTalon:
		if m.to == toFound {
			return false
		}
		c := s.t[m.at-1]
		if x.next(c) {
			return false // on a pile's top it may go up at once
		}
		// The new waste top (draw 1 with limited passes, streamliners)
		// and the new last talon card (draw 3) must not be next either.
		if m.at >= 2 && x.next(s.t[m.at-2]) {
			return false
		}
		if last := n - 1; last > 0 {
			lc := s.t[last]
			if m.at == n {
				lc = s.t[last-1]
			}
			if x.next(lc) {
				return false
			}
		}
		w, n = m.at-1, n-1
		if m.rec {
			rec++
		}
	case mFoundDn:
		// The card brought down is next again; gen brings down no card
		// that would go straight back up.
		if x.safeDown(cardOf(int(s.f[m.from]), m.from)) {
			return false
		}
	default:
		return false
	}
	h := s.hashAfter(m)
	ob := x.lazyKind(m)
	_, dom := x.wasteBitsOf(w, n)
	if x.dominatedAt(h, rec, w, ob, dom) {
		return true
	}
	return x.tt.seen(x.keyOf(h, rec)^ob.hash(), dom)
}

// knownChild reports that the child m leads to, from a position with
// obligation parentOb, can be skipped unmade (seenChild), unless
// noSeenChild; with checkSeen it is made through enter as well.
func (x *search) knownChild(m move, parentOb oblig) bool {
	if x.noSeenChild || !x.seenChild(m) {
		return false
	}
	if x.checkSeen {
		x.checkSkip(m, parentOb)
	}
	return true
}

// checkSkip makes m through enter and counts in seenWrong whether enter
// would not have skipped it (checkSeen).
func (x *search) checkSkip(m move, parentOb oblig) {
	x.seenSkips++
	base := len(x.hist)
	if _, r := x.enter(m, parentOb); r != enterSkip {
		x.seenWrong++
	}
	x.undoTo(base)
}

// enter makes move m of the current position (whose obligation is
// parentOb) and what follows it at once (the safe moves; with twin stacks,
// y going up after a part of a run), and reports the new position's
// obligation and what to do with it. The position is recorded in the table
// when it is new. For every outcome but enterWon and enterFull the caller
// undoes to the height hist had before.
func (x *search) enter(m move, parentOb oblig) (oblig, int) {
	var ob oblig
	if !x.ref {
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
	checkDead := !x.ref && !x.f2t && x.s.home > home
	// In the last pass, draws make new leavers of the waste.
	if !x.ref && m.kind == mTalon && x.lastPass() && (m.rec || m.at > x.hist[base].oldW) {
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

// deadlocked reports a position that can never be won because some card
// can never leave its pile. The cards that must leave a pile by themselves
// are the face-down ones and the bottom card of the face-up run (nothing
// under them carries them away); call them leavers. A leaver can leave
// only once every leaver above it has left. In a relaxed game, where
// face-up cards above a run's bottom move freely, any card in the talon is
// at hand and a king always finds an empty pile, the topmost leaver A of a
// pile can leave once
//
//   - every card of its suit below it that is not yet up is reachable
//     (then A can go up), or
//   - a card A could be built on is reachable, or is on a foundation and
//     may come back down (then A can go onto it),
//
// where a card is reachable when every leaver above it has left (so no card
// under A is). Letting leavers leave until none can leaves only those that
// can never leave in the real game either; each must still reach a
// foundation, so the position is lost.
//
// In the last pass (no recycle left) the waste is such a pile too: every
// waste card is a leaver, and it can leave only after the cards above it;
// the stock stays at hand. Unlike a pile's leaver, a card still in the
// waste takes no card onto it, so a waste card is reachable only once it
// has left (see "The dead-end test" in docs/solver.md).
func (x *search) deadlocked() bool {
	s := &x.s
	// unreach is the set of the cards that are not reachable: at first the
	// face-down ones (under the face-up run's bottom, the topmost leaver of
	// its pile) and, in the last pass, the waste's. top[i] is the index of
	// pile i's topmost leaver that has not left, or −1; top[nPiles] is the
	// waste's. A pile's card becomes reachable when the leaver above it
	// has left (it is then the pile's topmost leaver), a waste card when it
	// has left itself. Which leavers can leave in the end does not depend
	// on the order they are tried in: leaving only makes cards reachable.
	unreach := s.tab &^ s.up
	any := unreach != 0
	var top [nPiles + 1]int8
	for i := range s.p {
		top[i] = -1
		if s.p[i].down > 0 {
			top[i] = int8(s.p[i].down)
		}
	}
	top[nPiles] = -1
	if x.lastPass() && s.w > 0 {
		for k := range s.w {
			unreach |= 1 << s.t[k]
		}
		top[nPiles] = int8(s.w) - 1
		any = true
	}
	if !any {
		return false
	}
	// The cards a leaver may go onto where they lie: on the tableau or in
	// the talon, and with worrying back on the foundations too (unreach
	// never holds a foundation card).
	onOK := ^uint64(0)
	if !x.f2t {
		for su := range uint8(4) {
			onOK &^= (1<<(su*13+s.f[su]) - 1) &^ (1<<(su*13) - 1)
		}
	}
	for changed := true; changed; {
		changed = false
		for i := range nPiles {
			p := &s.p[i]
			for top[i] >= 0 && canLeave(p.c[top[i]], unreach, onOK) {
				top[i]--
				if top[i] >= 0 {
					unreach &^= 1 << p.c[top[i]]
				}
				changed = true
			}
		}
		for top[nPiles] >= 0 && canLeave(s.t[top[nPiles]], unreach, onOK) {
			unreach &^= 1 << s.t[top[nPiles]]
			top[nPiles]--
			changed = true
		}
	}
	for i := range top {
		if top[i] >= 0 {
			return true
		}
	}
	return false
}

// lastPass reports whether no recycle is left: the waste can then only be
// played from the top down.
func (x *search) lastPass() bool {
	return x.recLimit >= 0 && x.s.rec >= x.recLimit
}

// canLeave is deadlocked's test for a leaver a whose leavers above have
// left; unreach is the set of the cards not reachable (never a foundation
// card), onOK that of the cards a may go onto when reachable (with
// worrying back every card, else every card not on a foundation). a can
// leave if it is a king, if every card of its suit below it that is not
// up is reachable (it can go up), or if a card it could be built on is
// reachable, or on a foundation and may come back down.
func canLeave(a uint8, unreach, onOK uint64) bool {
	return kingSet&(1<<a) != 0 || suitBelow[a]&unreach == 0 || aboveSet[a]&^unreach&onOK != 0
}

// suitBelow[c] is the set of the cards of c's suit of lower rank.
var suitBelow = func() (t [nCards]uint64) {
	for c := range uint8(nCards) {
		t[c] = (1<<c - 1) &^ (1<<(c/13*13) - 1)
	}
	return t
}()
