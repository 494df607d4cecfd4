package engine

// bitOf[c] is c's bit in a set of cards (0 for NoCard), so the stuck test
// after every move needs no arithmetic. In Double Klondike a bit stands for
// both copies of a card, which play alike.
var bitOf = func() (t [256]uint64) {
	for c := Card(1); c <= NumCards; c++ {
		t[c] = 1 << c.Index()
	}
	return t
}()

// bit returns c's bit in a set of cards.
func bit(c Card) uint64 { return bitOf[c] }

// kings is the set of the four kings.
var kings = bit(NewCard(NumRanks, Clubs)) | bit(NewCard(NumRanks, Diamonds)) |
	bit(NewCard(NumRanks, Hearts)) | bit(NewCard(NumRanks, Spades))

// IsStuck reports whether the game is stuck as the rule book defines it: in
// every position reachable by D and R alone (within the passes left), no move
// is legal other than D, R, U and moving a whole pile (a run with nothing
// beneath it) onto an empty pile. The test is conservative: a pointless
// back-and-forth move that remains keeps a game from being stuck.
func (g *Game) IsStuck() bool {
	sp := g.rules.Game.spec()
	if g.FoundationTotal() == int(sp.decks)*NumCards {
		return false
	}
	// up: the cards a foundation takes next; onto: the cards a tableau
	// pile's top takes; empty: the cards an empty pile takes, if any is.
	var up, onto, empty uint64
	next := &foundRank[g.base&15]
	for f := range int(sp.decks) * NumSuits {
		if r := next[g.found[f]+1]; r != 0 {
			up |= bitOf[NewCard(int(r), Suit(f&3))]
		}
	}
	piles := g.tab[:sp.piles]
	for i := range piles {
		if n := piles[i].n; n > 0 {
			onto |= sp.below[piles[i].cards[n-1]]
		} else {
			empty = sp.empty
		}
	}
	for i := range piles {
		p := &piles[i]
		if p.n == 0 {
			continue
		}
		if up&bit(p.top()) != 0 {
			return false // Tn-F
		}
		upc := p.up()
		run := sp.runLength(upc)
		for k := 1; k <= run; k++ {
			c := upc[len(upc)-k]
			if onto&bit(c) != 0 {
				return false // Tn-Tm onto a card
			}
			if empty&bit(c) != 0 && k != int(p.n) {
				return false // a run with cards beneath it to an empty pile
			}
		}
	}
	if g.rules.FoundationToTableau {
		for f := range int(sp.decks) * NumSuits {
			if c := g.foundationTop(f); c != NoCard && (onto|empty)&bit(c) != 0 {
				return false // Fs-Tn
			}
		}
	}
	// The waste tops reachable by D and R: the current one, those the rest
	// of this pass turns up, and, if a recycle is allowed, those of a whole
	// new pass (later passes repeat it).
	want := up | onto | empty
	if w := g.WasteTop(); w != NoCard && want&bit(w) != 0 {
		return false
	}
	n, d := int(g.talonN), g.rules.Draw
	for x := int(g.wasteN); x < n; {
		x = min(x+d, n)
		if want&bit(g.talon[x-1]) != 0 {
			return false
		}
	}
	if n > 0 && g.canRecycle() {
		for x := 0; x < n; {
			x = min(x+d, n)
			if want&bit(g.talon[x-1]) != 0 {
				return false
			}
		}
	}
	return true
}

// updateStatus ends a game that is won or stuck.
func (g *Game) updateStatus() {
	if g.status != Playing {
		return
	}
	if g.FoundationTotal() == g.rules.Game.Cards() {
		g.status = Won
	} else if g.IsStuck() {
		g.status = Stuck
	}
}

// onFoundations returns how many copies of card c are on the foundations.
func (g *Game) onFoundations(c Card) int {
	s, pos := c.Suit(), foundPos[g.base&15][c.Rank()]
	n := 0
	if g.found[s] >= pos {
		n++
	}
	if g.rules.Game == DoubleKlondike && g.found[4+s] >= pos {
		n++
	}
	return n
}

// safeToSendUp reports whether c may go to a foundation now without any
// risk: every card that could be built on it in the tableau (in Klondike the
// two of the other colour one rank lower) is on the foundations already,
// every copy of it in Double Klondike, so no tableau card could ever need c.
func (g *Game) safeToSendUp(c Card) bool {
	if c == NoCard || g.foundationFor(c) < 0 {
		return false
	}
	sp := g.rules.Game.spec()
	for b := sp.below[c]; b != 0; b &= b - 1 {
		d := CardAt(bitIndex(b))
		if g.onFoundations(d) < int(sp.decks) {
			return false
		}
	}
	return true
}

// bitIndex returns the index of the lowest bit set in b.
func bitIndex(b uint64) int {
	i := 0
	for b&1 == 0 {
		b >>= 1
		i++
	}
	return i
}

// SafeMove returns the next safe move to a foundation, from a tableau pile
// (lowest number first) or else from the waste, and whether there is one.
func (g *Game) SafeMove() (Move, bool) {
	if g.status != Playing {
		return Move{}, false
	}
	for i := range g.piles() {
		if g.safeToSendUp(g.tab[i].top()) {
			return PileUp(i + 1), true
		}
	}
	if g.safeToSendUp(g.WasteTop()) {
		return WasteUp(), true
	}
	return Move{}, false
}

// AllFaceUp reports whether no tableau card is face down (in Whitehead,
// always).
func (g *Game) AllFaceUp() bool {
	for i := range g.piles() {
		if g.tab[i].down > 0 {
			return false
		}
	}
	return true
}

// AutoComplete returns the moves that finish the game when every tableau card
// is face up: cards go up to the foundations (tableau first, then waste),
// drawing and recycling as needed. It returns false, and no moves, when a
// card is face down or those moves cannot finish the game under its rules
// (for example when the passes run out); the game itself is not changed.
func (g *Game) AutoComplete() ([]Move, bool) {
	if g.status != Playing || !g.AllFaceUp() {
		return nil, false
	}
	// The bound on moves made without sending a card up: more than three
	// whole passes through a full stock in draw 1.
	idleLimit := 4 * (g.rules.Game.StockSize() + 1)
	sim := *g
	sim.hist = nil // the copy never undoes; appends go to a fresh slice
	sim.redo = 0
	var moves []Move
	idle := 0
	for sim.status == Playing && idle <= idleLimit {
		m, ok := sim.upMove()
		switch {
		case ok:
			idle = 0
		case sim.StockSize() > 0:
			m = DrawMove()
			idle++
		case sim.wasteN > 0 && sim.canRecycle():
			m = RecycleMove()
			idle++
		default:
			return nil, false
		}
		if _, err := sim.Apply(m); err != nil {
			return nil, false
		}
		moves = append(moves, m)
	}
	if sim.status != Won {
		return nil, false
	}
	return moves, true
}

// upMove returns a move of a card to a foundation: from a tableau pile
// (lowest number first) or else from the waste.
func (g *Game) upMove() (Move, bool) {
	for i := range g.piles() {
		if c := g.tab[i].top(); c != NoCard && g.foundationFor(c) >= 0 {
			return PileUp(i + 1), true
		}
	}
	if c := g.WasteTop(); c != NoCard && g.foundationFor(c) >= 0 {
		return WasteUp(), true
	}
	return Move{}, false
}
