package solver

// canRecycle reports whether the rules allow another recycle.
func (x *search) canRecycle() bool { return x.recLimit < 0 || x.s.rec < x.recLimit }

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
