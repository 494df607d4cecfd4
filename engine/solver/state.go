package solver

// The solver's own position: compact, copied by value, changed in place by
// do and put back exactly by undo.

// A pile holds cards c[:n], bottom first; the first down are face down.
type pile struct {
	c    [maxPile + 1]uint8
	n    uint8
	down uint8
}

func (p *pile) top() uint8 {
	if p.n == 0 {
		return noCard
	}
	return p.c[p.n-1]
}

// under returns the card under position i, or noCard for the bottom.
func (p *pile) under(i uint8) uint8 {
	if i == 0 {
		return noCard
	}
	return p.c[i-1]
}

// move kinds.
const (
	mPileUp   uint8 = iota // top of pile from → foundation
	mPilePile              // cards from index at of pile from → pile to
	mTalon                 // talon card at position at (waste size after the draws) → pile to, or the foundation when to == toFound
	mFoundDn               // top of foundation suit from → pile to
)

const toFound = 7

// A move of the search. Talon moves are macros: the draws (and the recycle,
// if rec) that bring talon card at−1 to the top of the waste, then playing it.
type move struct {
	kind  uint8
	from  uint8
	to    uint8
	at    uint8 // first card moved (mPilePile) or waste size (mTalon)
	rec   bool  // mTalon: a recycle is needed
	score int16 // ordering priority, higher first
}

// An applied move with what undo needs.
type applied struct {
	m        move
	card     uint8
	revealed bool
	oldW     uint8
	cnt      uint8 // cards moved by mPilePile
}

// state is a full-information position.
type state struct {
	p    [nPiles]pile
	t    [talonMax]uint8 // talon in draw order: t[:w] waste (top t[w-1]), t[w:tn] stock
	tn   uint8
	w    uint8
	rec  int32 // recycles used
	f    [4]uint8
	home int32  // cards on the foundations
	h    uint64 // incremental hash of tableau and foundations
	// Kept up to date by do and undo so that move generation need not scan
	// the piles (rehash sets them from scratch): tab is the set of the
	// tableau's cards, up that of its face-up ones, tops that of the piles'
	// top cards, nxt that of the next card of each foundation; loc[c] and
	// pos[c] are the pile and the index there of tableau card c
	// (meaningless for a card not in tab).
	tab, up, tops, nxt uint64
	loc, pos           [nCards + 1]uint8
	// zc is the table of tableau terms h is made with: zCardTwin, under
	// which twins carrying each other's stacks hash alike (see zCardTwin),
	// or zCard (the reference search, and noTwins).
	zc *[nCards][nCards + 1]uint64
}

// rehash computes h from scratch.
func (s *state) rehash() {
	var h uint64
	for i := range s.p {
		p := &s.p[i]
		for j := uint8(0); j < p.n; j++ {
			h += s.zc[p.c[j]][p.under(j)]
		}
		h += zDown[i][p.down]
	}
	for su := range s.f {
		h += zFound[su][s.f[su]]
	}
	s.h = h
	s.tab, s.up, s.tops, s.nxt = 0, 0, 0, 0
	for i := range s.p {
		p := &s.p[i]
		if p.n > 0 {
			s.tops |= 1 << p.c[p.n-1]
		}
		for j := uint8(0); j < p.n; j++ {
			c := p.c[j]
			s.tab |= 1 << c
			if j >= p.down {
				s.up |= 1 << c
			}
			s.loc[c], s.pos[c] = uint8(i), j
		}
	}
	for su := range uint8(4) {
		if s.f[su] < king {
			s.nxt |= 1 << cardOf(int(s.f[su])+1, su)
		}
	}
}

// topOf returns the pile that card t tops, or -1.
func (s *state) topOf(t uint8) int {
	if s.tops&(1<<t) != 0 {
		return int(s.loc[t])
	}
	return -1
}

// reveal turns pile i's top card face up if it is face down.
func (s *state) reveal(i int) bool {
	p := &s.p[i]
	if p.n > 0 && p.down == p.n {
		s.h += zDown[i][p.down-1] - zDown[i][p.down]
		p.down--
		s.up |= 1 << p.c[p.down]
		return true
	}
	return false
}

func (s *state) unreveal(i int) {
	p := &s.p[i]
	s.h += zDown[i][p.down+1] - zDown[i][p.down]
	s.up &^= 1 << p.c[p.down]
	p.down++
}

func (s *state) foundUp(c uint8) {
	su := cSuit[c]
	s.h += zFound[su][s.f[su]+1] - zFound[su][s.f[su]]
	s.f[su]++
	s.home++
	s.nxt &^= 1 << c
	if cRank[c] < king {
		s.nxt |= 1 << (c + 1)
	}
}

func (s *state) foundDown(su uint8) uint8 {
	s.h += zFound[su][s.f[su]-1] - zFound[su][s.f[su]]
	s.f[su]--
	s.home--
	c := cardOf(int(s.f[su])+1, su)
	s.nxt |= 1 << c
	if cRank[c] < king {
		s.nxt &^= 1 << (c + 1)
	}
	return c
}

// push puts card c on pile i.
func (s *state) push(i int, c uint8) {
	p := &s.p[i]
	s.h += s.zc[c][p.top()]
	s.tab |= 1 << c
	s.up |= 1 << c
	s.tops = s.tops&^(1<<p.top()) | 1<<c
	s.loc[c], s.pos[c] = uint8(i), p.n
	p.c[p.n] = c
	p.n++
}

// pop takes the top card of pile i.
func (s *state) pop(i int) uint8 {
	p := &s.p[i]
	p.n--
	c := p.c[p.n]
	s.h -= s.zc[c][p.top()]
	s.tab &^= 1 << c
	s.up &^= 1 << c
	s.tops &^= 1 << c
	if p.n > 0 {
		s.tops |= 1 << p.c[p.n-1]
	}
	return c
}

// takeTalon removes talon card at−1 and leaves the waste with at−1 cards.
func (s *state) takeTalon(at uint8) uint8 {
	c := s.t[at-1]
	copy(s.t[at-1:s.tn-1], s.t[at:s.tn])
	s.tn--
	s.w = at - 1
	return c
}

func (s *state) putTalon(at, c, oldW uint8) {
	copy(s.t[at:s.tn+1], s.t[at-1:s.tn])
	s.t[at-1] = c
	s.tn++
	s.w = oldW
}

// do plays m and returns its undo record.
func (s *state) do(m move) applied {
	a := applied{m: m, oldW: s.w}
	switch m.kind {
	case mPileUp:
		a.card = s.pop(int(m.from))
		s.foundUp(a.card)
		a.revealed = s.reveal(int(m.from))
	case mPilePile:
		src, dst := &s.p[m.from], &s.p[m.to]
		c := src.c[m.at]
		s.h += s.zc[c][dst.top()] - s.zc[c][src.under(m.at)]
		k := src.n - m.at
		// The moved run's top stays a top; dst's top and src's new one change.
		s.tops &^= 1 << dst.top()
		if m.at > 0 {
			s.tops |= 1 << src.c[m.at-1]
		}
		for j := range k {
			d := src.c[m.at+j]
			dst.c[dst.n+j] = d
			s.loc[d], s.pos[d] = m.to, dst.n+j
		}
		dst.n += k
		a.cnt = k
		src.n = m.at
		a.revealed = s.reveal(int(m.from))
	case mTalon:
		a.card = s.takeTalon(m.at)
		if m.rec {
			s.rec++
		}
		if m.to == toFound {
			s.foundUp(a.card)
		} else {
			s.push(int(m.to), a.card)
		}
	case mFoundDn:
		a.card = s.foundDown(m.from)
		s.push(int(m.to), a.card)
	}
	return a
}

// undo takes back a, which must be the last move done.
func (s *state) undo(a *applied) {
	m := a.m
	switch m.kind {
	case mPileUp:
		if a.revealed {
			s.unreveal(int(m.from))
		}
		s.foundDown(cSuit[a.card])
		s.push(int(m.from), a.card)
	case mPilePile:
		if a.revealed {
			s.unreveal(int(m.from))
		}
		src, dst := &s.p[m.from], &s.p[m.to]
		start := dst.n - a.cnt
		c := dst.c[start]
		s.tops &^= 1 << src.top()
		if start > 0 {
			s.tops |= 1 << dst.c[start-1]
		}
		for j := range a.cnt {
			d := dst.c[start+j]
			src.c[src.n+j] = d
			s.loc[d], s.pos[d] = m.from, src.n+j
		}
		src.n += a.cnt
		dst.n = start
		s.h += s.zc[c][src.under(m.at)] - s.zc[c][dst.top()]
	case mTalon:
		if m.to == toFound {
			s.foundDown(cSuit[a.card])
		} else {
			s.pop(int(m.to))
		}
		if m.rec {
			s.rec--
		}
		s.putTalon(m.at, a.card, a.oldW)
	case mFoundDn:
		s.pop(int(m.to))
		s.foundUp(a.card)
	}
}
