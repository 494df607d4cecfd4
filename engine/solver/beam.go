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
	arena := slices.Clone(x.hist)
	recs := []beamRec{{parent: -1, start: 0, end: int32(len(arena))}}
	cur := []beamCand{{s: x.s, rec: 0}}
	var next []beamCand
	var keys []beamKey
	var buf []move
	for len(cur) > 0 {
		next = next[:0]
		for i := range cur {
			c := &cur[i]
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
				if !x.noSeenChild && x.seenChild(m) {
					if x.checkSeen {
						x.checkSkip(m, c.ob)
					}
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
		// The best width positions go on; among equals, the earlier (the
		// better parent, the higher-ranked move) first. The order is made
		// on small keys, not on the positions (hundreds of bytes each).
		keys = keys[:0]
		for i := range next {
			keys = append(keys, beamKey{score: next[i].score, i: int32(i)})
		}
		slices.SortFunc(keys, func(a, b beamKey) int {
			if a.score != b.score {
				return int(b.score - a.score)
			}
			return int(a.i - b.i)
		})
		cur = cur[:0]
		for _, k := range keys[:min(width, len(keys))] {
			cur = append(cur, next[k.i])
		}
	}
}

// beamKey orders a beam level's positions: by score, then by place.
type beamKey struct {
	score, i int32
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
// passes, passes left. The weights were chosen on 13 late wins of draw 1
// with three passes (the beam widths they needed; docs/solver.md, "Beam
// search"): turning a card over counts as much as sending one up, a
// recycle three times as much against.
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
