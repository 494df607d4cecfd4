package solver

import (
	"slices"
	"time"
)

// Beam search: an incomplete search for wins that depth-first search finds
// late. Depth first commits to its first choices and must exhaust
// everything under them before it reconsiders one, so a win that starts
// with a move the ordering ranks low can lie behind millions of positions.
// A beam goes level by level instead, keeping at each level only the width
// best positions by an estimate of progress (eval): every first choice
// stays alive as long as it looks as good as the others. A win it finds is
// a win; running out proves nothing.

// beamCand is a position of a beam level.
type beamCand struct {
	s     state
	ob    oblig
	rec   int32 // its record in the beam's recs
	score int32
}

// beamRec is how a position of the beam was reached: from the position of
// record parent by the applied moves hist[start:end] of the beam's arena.
type beamRec struct {
	parent     int32
	start, end int32
}

// beam runs a beam search of the given width from the current position
// (after its safe moves), in a table reset for it, until it wins, runs out
// of positions or x.maxNodes / x.deadline stop it. On a win x.stop is
// stopWon and x.hist holds the winning line, as after a depth-first win.
func (x *search) beam(width int) {
	if !x.start() {
		return
	}
	// The buffers are the search's, kept from one beam to the next.
	bb := &x.bb
	arena := append(bb.arena[:0], x.hist...)
	recs := append(bb.recs[:0], beamRec{parent: -1, start: 0, end: int32(len(arena))})
	cur := append(bb.cur[:0], beamCand{s: x.s, rec: 0})
	order := append(bb.order[:0], 0)
	next := bb.next[:0]
	buf := bb.buf
	defer func() {
		bb.arena, bb.recs, bb.cur, bb.next, bb.order, bb.buf = arena, recs, cur, next, order, buf
	}()
	for len(order) > 0 {
		next = next[:0]
		for _, ci := range order {
			c := &cur[ci]
			if x.maxNodes > 0 && x.nodes >= x.maxNodes {
				x.stop = stopNodes
				return
			}
			x.nodes++
			if x.timed && x.nodes%budgetCheckEvery == 0 && time.Now().After(x.deadline) {
				x.stop = stopTime
				return
			}
			x.s = c.s
			x.hist = x.hist[:0]
			buf = x.gen(buf[:0], c.ob)
			x.prefetchChildren(buf)
			for _, m := range buf {
				if x.knownChild(m, c.ob) {
					continue
				}
				ob, r := x.enter(m, c.ob)
				switch r {
				case enterWon:
					x.beamLine(arena, recs, c.rec)
					x.stop = stopWon
					return
				case enterFull:
					x.stop = stopMemory
					return
				case enterNew:
					recs = append(recs, beamRec{parent: c.rec, start: int32(len(arena))})
					arena = append(arena, x.hist...)
					recs[len(recs)-1].end = int32(len(arena))
					next = append(next, beamCand{s: x.s, ob: ob, rec: int32(len(recs) - 1), score: x.eval()})
				}
				x.undoTo(0)
			}
		}
		// The best width positions go on, in order: by score, and among
		// equals the earlier (the better parent, the higher-ranked move)
		// first. The order is made on the positions' indexes, not on the
		// positions (hundreds of bytes each), and the next level reads
		// them where they are.
		order = bb.best(next, width, order[:0])
		cur, next = next, cur
	}
}

// beamBufs are the buffers of beam, kept by the search between beams.
type beamBufs struct {
	arena []applied
	recs  []beamRec
	cur   []beamCand
	next  []beamCand
	order []int32
	buf   []move
	count []int32
}

// best appends to order the indexes of the width best of cands: by score,
// highest first, and among equal scores by index. A counting sort on the
// scores (they span a few hundred values), stable on the indexes: the
// order slices.SortFunc would give with (score desc, index asc).
func (bb *beamBufs) best(cands []beamCand, width int, order []int32) []int32 {
	if len(cands) == 0 {
		return order
	}
	lo, hi := cands[0].score, cands[0].score
	for i := range cands {
		lo, hi = min(lo, cands[i].score), max(hi, cands[i].score)
	}
	n := int(hi-lo) + 2
	if cap(bb.count) < n {
		bb.count = make([]int32, n)
	}
	count := bb.count[:n]
	clear(count)
	// count[hi−score+1] counts each score; their running sums are the
	// first place of each score in the order.
	for i := range cands {
		count[hi-cands[i].score+1]++
	}
	for k := 1; k < n; k++ {
		count[k] += count[k-1]
	}
	total := min(width, len(cands))
	if cap(order) < len(cands) {
		order = make([]int32, 0, len(cands))
	}
	order = order[:len(cands)]
	for i := range cands {
		k := hi - cands[i].score
		order[count[k]] = int32(i)
		count[k]++
	}
	return order[:total]
}

// beamLine sets x.hist to the moves from the beam's root to the position of
// record r followed by those in x.hist (the last step, which won).
func (x *search) beamLine(arena []applied, recs []beamRec, r int32) {
	last := slices.Clone(x.hist)
	var segs [][]applied
	for ; r >= 0; r = recs[r].parent {
		segs = append(segs, arena[recs[r].start:recs[r].end])
	}
	x.hist = x.hist[:0]
	for i := len(segs) - 1; i >= 0; i-- {
		x.hist = append(x.hist, segs[i]...)
	}
	x.hist = append(x.hist, last...)
}

// eval estimates how far the current position has come, for the beam:
// cards up, cards turned face up, talon cards played and, with a limit on
// passes, passes left: turning a card over counts as much as sending one
// up, a recycle three times as much against. The weights are those with
// which beams of the least width found the late wins of draw 1 with three
// passes.
func (x *search) eval() int32 {
	s := &x.s
	var down int32
	for i := range s.p {
		down += int32(s.p[i].down)
	}
	v := 10*s.home - 10*down - int32(s.tn)
	if x.recLimit >= 0 {
		v -= 30 * s.rec
	}
	return v
}
