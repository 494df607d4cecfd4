package solver

// Zobrist keys. Tableau: every card's term depends on the card right under
// it (noCard for a pile's bottom), so the sum over the tableau does not
// depend on the order of the piles; zDown[i][k] marks pile i having k
// face-down cards (zero for k = 0, so that piles without face-down cards
// can swap places). The talon's contents follow from the rest (every card
// not on the tableau or a foundation is in it, in its original order), so
// only the waste position and the recycles are hashed, at lookup time.
var (
	zCard [nCards][nCards + 1]uint64
	// zCardTwin is zCard with the term of a card c on a card u it may be
	// built on made the same as that of c on u's twin (the card of u's
	// rank and colour, of the other suit): positions that differ only by
	// which of two twins carries which stack get the same key, whether
	// the twins are face up or face down (a twin on a foundation or in
	// the talon carries nothing, and its own term tells where it is).
	// Such positions are equally winnable (docs/solver.md, "Twin stacks").
	zCardTwin [nCards][nCards + 1]uint64
	zDown     [nPiles][maxPile + 1]uint64
	zFound    [4][14]uint64
	zWaste    [talonMax + 2]uint64
	zRec      [64]uint64
)

// fillZobrist fills the Zobrist keys.
func fillZobrist() {
	x := uint64(0x9E3779B97F4A7C15)
	next := func() uint64 { // splitmix64: fixed, so hashes are the same on every run
		x += 0x9E3779B97F4A7C15
		z := x
		z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
		z = (z ^ (z >> 27)) * 0x94D049BB133111EB
		return z ^ (z >> 31)
	}
	for c := range zCard {
		for u := range zCard[c] {
			zCard[c][u] = next()
		}
	}
	for c := range zCardTwin {
		for u := range zCardTwin[c] {
			zCardTwin[c][u] = zCard[c][u]
			if u < nCards && goesOn(uint8(c), uint8(u)) {
				tw := twin(uint8(u))
				zCardTwin[c][u] = zCard[c][min(uint8(u), tw)]
			}
		}
	}
	for i := range zDown {
		for k := 1; k <= maxPile; k++ {
			zDown[i][k] = next()
		}
	}
	for s := range zFound {
		for k := range zFound[s] {
			zFound[s][k] = next()
		}
	}
	for i := range zWaste {
		zWaste[i] = next()
	}
	for i := range zRec {
		zRec[i] = next() & variantMask
	}
}

// hashAfter returns h as do(m) would leave it, without playing m: what a
// search needs to know where in its table the position after m lies before
// it gets there (see table.prefetch). The safe moves that follow m are not
// in it. TestHashAfter checks it against do.
func (s *state) hashAfter(m move) uint64 {
	h := s.h
	switch m.kind {
	case mPileUp:
		p := &s.p[m.from]
		c := p.c[p.n-1]
		su := cSuit[c]
		h += zFound[su][s.f[su]+1] - zFound[su][s.f[su]] - s.zc[c][p.under(p.n-1)]
		if p.n > 1 && p.down == p.n-1 {
			h += zDown[m.from][p.down-1] - zDown[m.from][p.down]
		}
	case mPilePile:
		src, dst := &s.p[m.from], &s.p[m.to]
		c := src.c[m.at]
		h += s.zc[c][dst.top()] - s.zc[c][src.under(m.at)]
		if m.at > 0 && src.down == m.at {
			h += zDown[m.from][src.down-1] - zDown[m.from][src.down]
		}
	case mTalon:
		c := s.t[m.at-1]
		if m.to == toFound {
			su := cSuit[c]
			h += zFound[su][s.f[su]+1] - zFound[su][s.f[su]]
		} else {
			h += s.zc[c][s.p[m.to].top()]
		}
	case mFoundDn:
		su := m.from
		c := cardOf(int(s.f[su]), su)
		h += zFound[su][s.f[su]-1] - zFound[su][s.f[su]] + s.zc[c][s.p[m.to].top()]
	}
	return h
}
