package engine

import (
	"fmt"
)

// maxPile is the most cards a tableau pile can hold: eight face-down cards
// (Double Klondike's pile 9) under a run from king to ace.
const maxPile = MaxPiles - 1 + NumRanks

// A pile is one tableau pile: cards[:n], bottom first, of which the first
// down are face down.
type pile struct {
	cards [maxPile]Card
	n     uint8
	down  uint8
}

func (p *pile) top() Card {
	if p.n == 0 {
		return NoCard
	}
	return p.cards[p.n-1]
}

func (p *pile) up() []Card { return p.cards[p.down:p.n] }

// reveal turns the top card face up if it is face down, and reports whether it did.
func (p *pile) reveal() bool {
	if p.n > 0 && p.down == p.n {
		p.down--
		return true
	}
	return false
}

// An undoRecord holds what Undo needs to take a move back exactly.
type undoRecord struct {
	move     Move
	n        uint8 // cards turned by D or moved by Tn-Tm
	fnd      uint8 // the foundation a card went to or came from, whose top is the card
	revealed bool  // the move turned a tableau card face up
	turned   bool  // the move turned any card face up: a reveal or a draw
	delta    int32 // the score change actually applied
}

// A Game is one player's game: a position, the rules, the score and the
// history that undo needs. It is not safe for concurrent use; its methods
// never block and do no I/O.
//
// Every variant uses the same fixed arrays, sized for the largest game, so
// that moves never allocate; a game uses the first Variant.Piles piles and
// Variant.Foundations foundations.
type Game struct {
	rules Rules

	tab [MaxPiles]pile
	// talon holds the stock and the waste in draw order: talon[:wasteN] is
	// the waste, bottom first (its top is talon[wasteN-1]); talon[wasteN:talonN]
	// is the stock, next to be drawn first. Drawing moves the boundary; a
	// recycle sets it back to zero, which keeps the order the rule book asks.
	talon  [MaxStock]Card
	talonN uint8
	wasteN uint8
	// found holds the cards on each foundation: found[s] for suit s, and in
	// Double Klondike found[4+s] for the second foundation of suit s, which
	// never holds more than the first (see foundationFor).
	found [MaxFoundations]uint8
	base  uint8 // the rank every foundation starts at: the ace, or Whitehead's 29th card

	recycles int32
	score    int32
	moves    int32
	status   Status
	// hist holds the moves that U can take back. Past its length, in the
	// same array, lie the redo records that U took back, the last taken
	// back first: Y plays hist[len(hist)] again; a new move overwrites them.
	hist []undoRecord
	redo int32 // records past len(hist) that Y can play again
}

// historyCap is the undo history's first capacity: most games fit, so moves
// do not allocate.
const historyCap = 256

// NewGame starts a game on the deal under the rules. It refuses a deal that
// fails Deal.Validate, rules that fail Rules.Validate, and a deal of the
// wrong size for the rules' game (Double Klondike deals 104 cards, the
// others 52). In Whitehead the deal's first stock card starts the
// foundations and every tableau card is face up.
func NewGame(d Deal, r Rules) (*Game, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	if err := d.Validate(); err != nil {
		return nil, err
	}
	sp := r.Game.spec()
	if d.Decks() != int(sp.decks) {
		return nil, fmt.Errorf("%w: a %d-card deal for %v, which deals %d", ErrBadDeal, d.Decks()*NumCards, r.Game, r.Game.Cards())
	}
	g := &Game{rules: r, hist: make([]undoRecord, 0, historyCap), base: 1}
	for i := range int(sp.piles) {
		p := &g.tab[i]
		p.n = uint8(copy(p.cards[:], d.pile(i)))
		if !sp.faceUp {
			p.down = p.n - 1
		}
	}
	stock := d.Stock
	if r.Game == Whitehead {
		c := stock[0]
		g.base = uint8(c.Rank())
		g.found[c.Suit()] = 1
		stock = stock[1:]
	}
	g.talonN = uint8(copy(g.talon[:], stock))
	g.start()
	return g, nil
}

// start sets the opening score and status.
func (g *Game) start() {
	if g.rules.Scoring == ScoringVegas {
		g.score = -int32(g.rules.Game.Cards())
	}
	g.updateStatus()
}

// Clone returns an independent copy of the game, history (and what can be
// redone) included.
func (g *Game) Clone() *Game {
	c := *g
	n := len(g.hist)
	all := append(make([]undoRecord, 0, max(cap(g.hist), historyCap)), g.hist[:n+int(g.redo)]...)
	c.hist = all[:n]
	return &c
}

// Rules returns the game's rules.
func (g *Game) Rules() Rules { return g.rules }

// Status returns the game's status.
func (g *Game) Status() Status { return g.status }

// Score returns the running move points: the rule book's table for the
// scoring, without time adjustment (see FinalScore).
func (g *Game) Score() int { return int(g.score) }

// Moves returns how many moves were accepted, undos included.
func (g *Game) Moves() int { return int(g.moves) }

// Recycles returns how many times the waste went back to the stock
// (passes used).
func (g *Game) Recycles() int { return int(g.recycles) }

// PassesLeft returns how many more recycles the rules allow, or −1 for no limit.
func (g *Game) PassesLeft() int {
	r := g.rules.Recycles()
	if r < 0 {
		return -1
	}
	return max(0, r-int(g.recycles))
}

// canRecycle reports whether the rules allow one more recycle.
func (g *Game) canRecycle() bool {
	r := g.rules.Recycles()
	return r < 0 || int(g.recycles) < r
}

// Foundation returns how many cards are on the foundation of suit s (in
// Double Klondike the first of the two; see SecondFoundation).
func (g *Game) Foundation(s Suit) int { return int(g.found[s&3]) }

// SecondFoundation returns how many cards are on the second foundation of
// suit s in Double Klondike, and 0 in the other games. It never exceeds
// Foundation(s): a card goes up to the first foundation that takes it, and
// comes down from the second when both tops are the same card.
func (g *Game) SecondFoundation(s Suit) int { return int(g.found[4+s&3]) }

// FoundationBase returns the rank every foundation starts at: 1 (the ace),
// or in Whitehead the rank of the deal's 29th card. A foundation holding n
// cards has on top the card n−1 ranks above the base, a king followed by an
// ace.
func (g *Game) FoundationBase() int { return int(g.base) }

// foundationTop returns the top card of foundation f, or NoCard.
func (g *Game) foundationTop(f int) Card {
	n := g.found[f]
	if n == 0 {
		return NoCard
	}
	return NewCard(int(foundRank[g.base][n]), Suit(f&3))
}

// FoundationTotal returns how many cards are on the foundations.
func (g *Game) FoundationTotal() int {
	f := &g.found
	return int(f[0]) + int(f[1]) + int(f[2]) + int(f[3]) + int(f[4]) + int(f[5]) + int(f[6]) + int(f[7])
}

// StockSize returns how many cards are left in the stock.
func (g *Game) StockSize() int { return int(g.talonN - g.wasteN) }

// WasteSize returns how many cards are in the waste.
func (g *Game) WasteSize() int { return int(g.wasteN) }

// WasteTop returns the top card of the waste, or NoCard.
func (g *Game) WasteTop() Card {
	if g.wasteN == 0 {
		return NoCard
	}
	return g.talon[g.wasteN-1]
}

// Pile returns pile n's (1..7, or 1..9 in Double Klondike) count of
// face-down cards and a copy of its face-up cards, bottom first.
func (g *Game) Pile(n int) (down int, up []Card) {
	p := &g.tab[n-1]
	return int(p.down), append([]Card(nil), p.up()...)
}

// piles returns the game's tableau piles.
func (g *Game) piles() []pile { return g.tab[:g.rules.Game.spec().piles] }

// CanUndo reports whether U would be accepted now.
func (g *Game) CanUndo() bool { return g.undoError() == nil }

// CanRedo reports whether Y would be accepted now.
func (g *Game) CanRedo() bool { return g.redoError() == nil }

// Resign ends the game as resigned. It fails with ErrGameOver if the game
// has already ended.
func (g *Game) Resign() error {
	if g.status != Playing {
		return ErrGameOver
	}
	g.status = Resigned
	return nil
}

// TimeOut ends a game that is still being played as timed out, and reports
// whether it did.
func (g *Game) TimeOut() bool {
	if g.status != Playing {
		return false
	}
	g.status = TimedOut
	return true
}
