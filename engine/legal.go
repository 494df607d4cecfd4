package engine

// runLength returns the length of the movable run of a pile whose face-up
// cards are up, bottom first: the longest sequence at the top in which each
// card goes on the one below it.
func runLength(up []Card) int {
	if len(up) == 0 {
		return 0
	}
	k := 1
	for i := len(up) - 1; i > 0 && up[i].goesOn(up[i-1]); i-- {
		k++
	}
	return k
}

// fitLength returns how many cards of the movable run (the top run cards of
// up) go onto a pile whose top card is t (NoCard for an empty pile), or 0
// when none fits. At most one length can fit: the target fixes the rank of
// the run's bottom card, and an empty pile takes only a king.
func fitLength(up []Card, run int, t Card) int {
	n := len(up)
	if t == NoCard {
		if up[n-run].Rank() == NumRanks {
			return run
		}
		return 0
	}
	k := t.Rank() - up[n-1].Rank() // the run card one rank below t, counted from the top
	if k < 1 || k > run || up[n-k].Red() == t.Red() {
		return 0
	}
	return k
}

// A surface is what can be seen of a position: enough to list the legal
// moves. Both a Game and a View give one, so that the server and a client
// agree on what is legal.
type surface struct {
	up         [NumPiles][]Card
	down       [NumPiles]int
	wasteTop   Card
	stock      int
	waste      int
	found      [NumSuits]uint8
	canRecycle bool
	f2t        bool
}

func (g *Game) surface(s *surface) {
	for i := range g.tab {
		p := &g.tab[i]
		s.up[i] = p.up()
		s.down[i] = int(p.down)
	}
	s.wasteTop = g.WasteTop()
	s.stock = g.StockSize()
	s.waste = int(g.wasteN)
	s.found = g.found
	s.canRecycle = g.canRecycle()
	s.f2t = g.rules.FoundationToTableau
}

func top(up []Card) Card {
	if len(up) == 0 {
		return NoCard
	}
	return up[len(up)-1]
}

// goesUp reports whether c is the next card of its foundation.
func (s *surface) goesUp(c Card) bool {
	return c != NoCard && int(s.found[c.Suit()])+1 == c.Rank()
}

// goesTo reports whether the single card c may go on pile i.
func (s *surface) goesTo(c Card, i int) bool {
	t := top(s.up[i])
	if t == NoCard {
		return s.down[i] == 0 && c.Rank() == NumRanks
	}
	return c.goesOn(t)
}

// appendMoves appends every legal move but U, in a fixed order: D, R, W-F,
// W-Tn, Tn-F, Tn-Tm, Fs-Tn.
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
		for i := range NumPiles {
			if s.goesTo(w, i) {
				dst = append(dst, WasteToPile(i+1))
			}
		}
	}
	for i := range NumPiles {
		if s.goesUp(top(s.up[i])) {
			dst = append(dst, PileUp(i+1))
		}
	}
	for i := range NumPiles {
		run := runLength(s.up[i])
		if run == 0 {
			continue
		}
		for j := range NumPiles {
			if j != i && fitLength(s.up[i], run, top(s.up[j])) > 0 {
				dst = append(dst, PileToPile(i+1, j+1, 0))
			}
		}
	}
	if s.f2t {
		for su := range Suit(NumSuits) {
			if s.found[su] == 0 {
				continue
			}
			c := NewCard(int(s.found[su]), su)
			for i := range NumPiles {
				if s.goesTo(c, i) {
					dst = append(dst, FoundationDown(su, i+1))
				}
			}
		}
	}
	return dst
}

// LegalMoves appends every move that Apply would accept now to dst and
// returns the extended slice, in a fixed order: D, R, W-F, W-Tn, Tn-F, Tn-Tm,
// Fs-Tn, U. Tableau moves are written without a count. It appends nothing
// when the game is over. With room in dst it does not allocate.
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

// bit returns c's bit in a set of cards (0 for NoCard).
func bit(c Card) uint64 { return bitOf[c] }

// Card-set tables, so the stuck test after every move needs no arithmetic:
// bitOf[c] is c's bit; belowOf[t] the two cards that go on t in the tableau.
var bitOf, belowOf = cardSets()

func cardSets() (bitOf, belowOf [256]uint64) {
	for c := Card(1); c <= NumCards; c++ {
		bitOf[c] = 1 << c.Index()
	}
	for t := Card(1); t <= NumCards; t++ {
		r := t.Rank() - 1
		if r < 1 {
			continue
		}
		if t.Red() {
			belowOf[t] = bitOf[NewCard(r, Clubs)] | bitOf[NewCard(r, Spades)]
		} else {
			belowOf[t] = bitOf[NewCard(r, Diamonds)] | bitOf[NewCard(r, Hearts)]
		}
	}
	return bitOf, belowOf
}

// kings is the set of the four kings.
var kings = bit(NewCard(NumRanks, Clubs)) | bit(NewCard(NumRanks, Diamonds)) |
	bit(NewCard(NumRanks, Hearts)) | bit(NewCard(NumRanks, Spades))

// below returns the set of the two cards that go on t in the tableau.
func below(t Card) uint64 { return belowOf[t] }

// IsStuck reports whether the game is stuck as the rule book defines it: in
// every position reachable by D and R alone (within the passes left), no move
// is legal other than D, R, U and moving a king-headed run with nothing
// beneath it onto an empty pile. The test is conservative: a pointless
// back-and-forth move that remains keeps a game from being stuck.
func (g *Game) IsStuck() bool {
	if g.FoundationTotal() == NumCards {
		return false
	}
	// up: the cards a foundation takes next; onto: the cards a tableau
	// pile takes (kings when a pile is empty).
	var up, onto uint64
	for s := range Suit(NumSuits) {
		if n := g.found[s]; n < NumRanks {
			// The next card of suit s: 1 + s·13 + n.
			up |= bitOf[Card(1+int(s)*NumRanks+int(n))]
		}
	}
	for i := range g.tab {
		if n := g.tab[i].n; n > 0 {
			onto |= belowOf[g.tab[i].cards[n-1]]
		} else {
			onto |= kings
		}
	}
	for i := range g.tab {
		p := &g.tab[i]
		if p.n == 0 {
			continue
		}
		if up&bit(p.top()) != 0 {
			return false // Tn-F
		}
		upc := p.up()
		run := runLength(upc)
		for k := 1; k <= run; k++ {
			c := upc[len(upc)-k]
			if onto&bit(c)&^kings != 0 {
				return false // Tn-Tm onto a card
			}
			if onto&bit(c)&kings != 0 && !(k == int(p.n)) {
				return false // a king-headed run with cards beneath it to an empty pile
			}
		}
	}
	if g.rules.FoundationToTableau {
		for s := range Suit(NumSuits) {
			if g.found[s] > 0 && onto&bit(NewCard(int(g.found[s]), s)) != 0 {
				return false // Fs-Tn
			}
		}
	}
	// The waste tops reachable by D and R: the current one, those the rest
	// of this pass turns up, and, if a recycle is allowed, those of a whole
	// new pass (later passes repeat it).
	want := up | onto
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
	if g.FoundationTotal() == NumCards {
		g.status = Won
	} else if g.IsStuck() {
		g.status = Stuck
	}
}

// safeToSendUp reports whether c may go to its foundation now without any
// risk: both foundations of the other colour hold at least its rank minus one,
// so no tableau card could ever need c to build on.
func (g *Game) safeToSendUp(c Card) bool {
	if c == NoCard || int(g.found[c.Suit()])+1 != c.Rank() {
		return false
	}
	need := uint8(c.Rank() - 1)
	if c.Red() {
		return g.found[Clubs] >= need && g.found[Spades] >= need
	}
	return g.found[Diamonds] >= need && g.found[Hearts] >= need
}

// SafeMove returns the next safe move to a foundation, from a tableau pile
// (lowest number first) or else from the waste, and whether there is one.
func (g *Game) SafeMove() (Move, bool) {
	if g.status != Playing {
		return Move{}, false
	}
	for i := range g.tab {
		if g.safeToSendUp(g.tab[i].top()) {
			return PileUp(i + 1), true
		}
	}
	if g.safeToSendUp(g.WasteTop()) {
		return WasteUp(), true
	}
	return Move{}, false
}

// AllFaceUp reports whether no tableau card is face down.
func (g *Game) AllFaceUp() bool {
	for i := range g.tab {
		if g.tab[i].down > 0 {
			return false
		}
	}
	return true
}

// autoCompleteIdle bounds the moves auto-complete may make without sending a
// card up: more than three whole passes through a full stock in draw 1.
const autoCompleteIdle = 4 * (StockSize + 1)

// AutoComplete returns the moves that finish the game when every tableau card
// is face up: cards go up to the foundations (tableau first, then waste),
// drawing and recycling as needed. It returns false, and no moves, when a
// card is face down or those moves cannot finish the game under its rules
// (for example when the passes run out); the game itself is not changed.
func (g *Game) AutoComplete() ([]Move, bool) {
	if g.status != Playing || !g.AllFaceUp() {
		return nil, false
	}
	sim := *g
	sim.hist = nil // the copy never undoes; appends go to a fresh slice
	var moves []Move
	idle := 0
	for sim.status == Playing && idle <= autoCompleteIdle {
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
	for i := range g.tab {
		if c := g.tab[i].top(); c != NoCard && int(g.found[c.Suit()])+1 == c.Rank() {
			return PileUp(i + 1), true
		}
	}
	if c := g.WasteTop(); c != NoCard && int(g.found[c.Suit()])+1 == c.Rank() {
		return WasteUp(), true
	}
	return Move{}, false
}
