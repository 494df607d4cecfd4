package engine

// A surface is what can be seen of a position: enough to list the legal
// moves. Both a Game and a View give one, so that the server and a client
// agree on what is legal.
type surface struct {
	sp         *variantSpec
	piles      int
	up         [MaxPiles][]Card
	down       [MaxPiles]int
	wasteTop   Card
	stock      int
	waste      int
	found      [MaxFoundations]uint8
	base       uint8
	canRecycle bool
	f2t        bool
}

func (g *Game) surface(s *surface) {
	s.sp = g.rules.Game.spec()
	s.piles = int(s.sp.piles)
	for i := range s.piles {
		p := &g.tab[i]
		s.up[i] = p.up()
		s.down[i] = int(p.down)
	}
	s.wasteTop = g.WasteTop()
	s.stock = g.StockSize()
	s.waste = int(g.wasteN)
	s.found = g.found
	s.base = g.base
	s.canRecycle = g.canRecycle()
	s.f2t = g.rules.FoundationToTableau
}

func top(up []Card) Card {
	if len(up) == 0 {
		return NoCard
	}
	return up[len(up)-1]
}

// goesUp reports whether c is the next card of a foundation.
func (s *surface) goesUp(c Card) bool {
	if c == NoCard {
		return false
	}
	su, r, next := c.Suit(), uint8(c.Rank()), &foundRank[s.base&15]
	return next[s.found[su]+1] == r || s.sp.decks == 2 && next[s.found[4+su]+1] == r
}

// goesTo reports whether the single card c may go on pile i.
func (s *surface) goesTo(c Card, i int) bool {
	t := top(s.up[i])
	if t == NoCard {
		return s.down[i] == 0 && s.sp.empty&bitOf[c] != 0
	}
	return s.sp.goesOn(c, t)
}

// appendMoves appends every legal move but U, in a fixed order: D, R, W-F,
// W-Tn, Tn-F, Tn-Tm, Fs-Tn. Where an empty pile takes any card, Tn-Tm onto
// it (the whole run) is followed by Tn:k-Tm for each shorter part k.
func (s *surface) appendMoves(dst []Move) []Move {
	if s.stock > 0 {
		dst = append(dst, DrawMove())
	}
	if s.stock == 0 && s.waste > 0 && s.canRecycle {
		dst = append(dst, RecycleMove())
	}
	if w := s.wasteTop; w != NoCard {
		if s.goesUp(w) {
			dst = append(dst, WasteUp())
		}
		for i := range s.piles {
			if s.goesTo(w, i) {
				dst = append(dst, WasteToPile(i+1))
			}
		}
	}
	for i := range s.piles {
		if s.goesUp(top(s.up[i])) {
			dst = append(dst, PileUp(i+1))
		}
	}
	anyToEmpty := s.sp.anyToEmpty()
	for i := range s.piles {
		run := s.sp.runLength(s.up[i])
		if run == 0 {
			continue
		}
		for j := range s.piles {
			if j == i {
				continue
			}
			t := top(s.up[j])
			if t == NoCard && s.down[j] > 0 {
				continue
			}
			if s.sp.fitLength(s.up[i], run, t) > 0 {
				dst = append(dst, PileToPile(i+1, j+1, 0))
				if t == NoCard && anyToEmpty {
					for k := 1; k < run; k++ {
						dst = append(dst, PileToPile(i+1, j+1, k))
					}
				}
			}
		}
	}
	if s.f2t {
		for su := range Suit(NumSuits) {
			// Either foundation's top may come down; the target decides
			// which (see Apply), so each pile is listed once.
			c1, c2 := s.foundationTop(int(su)), NoCard
			if s.sp.decks == 2 && s.found[4+su] != s.found[su] {
				c2 = s.foundationTop(4 + int(su))
			}
			if c1 == NoCard {
				continue
			}
			for i := range s.piles {
				if s.goesTo(c1, i) || c2 != NoCard && s.goesTo(c2, i) {
					dst = append(dst, FoundationDown(su, i+1))
				}
			}
		}
	}
	return dst
}

// foundationTop returns the top card of foundation f, or NoCard.
func (s *surface) foundationTop(f int) Card {
	n := s.found[f]
	if n == 0 {
		return NoCard
	}
	return NewCard(int(foundRank[s.base&15][n]), Suit(f&3))
}

// LegalMoves appends every move that Apply would accept now to dst and
// returns the extended slice, in a fixed order: D, R, W-F, W-Tn, Tn-F, Tn-Tm,
// Fs-Tn, U. Tableau moves are written without a count, except the shorter
// parts of a run that may go to an empty pile where an empty pile takes any
// card (Thumb and Pouch, Whitehead). Y is never listed (see CanRedo). It
// appends nothing when the game is over. With room in dst it does not
// allocate.
func (g *Game) LegalMoves(dst []Move) []Move {
	if g.status != Playing {
		return dst
	}
	var s surface
	g.surface(&s)
	dst = s.appendMoves(dst)
	if g.undoError() == nil {
		dst = append(dst, UndoMove())
	}
	return dst
}
