package solver

import "math/bits"

// next reports whether c is the next card of its foundation.
func (x *search) next(c uint8) bool { return x.s.nxt&(1<<c) != 0 }

// safe reports whether c, the next card of its foundation, may go up at once
// without losing a win. The rules are Solvitaire's (Blake & Gent): aces and
// twos always. In Klondike, a card of rank r when both foundations of the
// other colour hold at least r − 2 and the other foundation of its colour
// at least r − 3 (then every card that could be built on c can go up
// itself); only when foundation-to-tableau moves are off is c also safe as
// soon as both foundations of the other colour hold r − 1 (the engine's
// SafeMove rule): with them that rule loses wins, since a card may have to
// come back down a long way. In Thumb and Pouch, a card of rank r when the
// three other foundations hold at least r − 2 (Solvitaire's rule for
// building in any suit).
func (x *search) safe(c uint8) bool {
	r := cRank[c]
	if r <= 2 || x.stream {
		return true
	}
	if x.opts.ref {
		return false
	}
	f := &x.s.f
	if x.gr.anySuit {
		// Each card that could go on c (rank r − 1, another suit) can
		// go up itself, and every card that could go on one of those
		// (rank r − 2) is up already.
		su := cSuit[c]
		for o := range uint8(4) {
			if o != su && int8(f[o]) < r-2 {
				return false
			}
		}
		return true
	}
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
