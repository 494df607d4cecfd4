package solver

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
	if x.opts.ref {
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
// obligation parentOb, can be skipped unmade (seenChild), unless the
// options say noSeenChild; with checkSeen it is made through enter as well.
func (x *search) knownChild(m move, parentOb oblig) bool {
	if x.opts.noSeenChild || !x.seenChild(m) {
		return false
	}
	if x.opts.checkSeen != nil {
		x.checkSkip(m, parentOb)
	}
	return true
}

// checkSkip makes m through enter and counts in the options' checkSeen
// whether enter would not have skipped it.
func (x *search) checkSkip(m move, parentOb oblig) {
	c := x.opts.checkSeen
	c.skips++
	base := len(x.hist)
	if _, r := x.enter(m, parentOb); r != enterSkip {
		c.wrong++
	}
	x.undoTo(base)
}
