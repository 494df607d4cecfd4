package engine

import (
	"fmt"
)

// maxPile is the most cards a tableau pile can hold: six face-down cards under
// a run from king to ace.
const maxPile = NumPiles - 1 + NumRanks

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

// run returns the length of the pile's movable run (see runLength).
func (p *pile) run() int { return runLength(p.up()) }

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
	card     Card  // the card a waste or Tn-F move took, for undo
	n        uint8 // cards turned by D or moved by Tn-Tm
	revealed bool  // the move turned a tableau card face up
	turned   bool  // the move turned any card face up: a reveal or a draw
	delta    int32 // the score change actually applied
}

// A Game is one player's game: a position, the rules, the score and the
// history that undo needs. It is not safe for concurrent use; its methods
// never block and do no I/O.
type Game struct {
	rules Rules

	tab [NumPiles]pile
	// talon holds the stock and the waste in draw order: talon[:wasteN] is
	// the waste, bottom first (its top is talon[wasteN-1]); talon[wasteN:talonN]
	// is the stock, next to be drawn first. Drawing moves the boundary; a
	// recycle sets it back to zero, which keeps the order the rule book asks.
	talon  [StockSize]Card
	talonN uint8
	wasteN uint8
	found  [NumSuits]uint8 // cards on each suit's foundation

	recycles int32
	score    int32
	moves    int32
	status   Status
	hist     []undoRecord
}

// historyCap is the undo history's first capacity: most games fit, so moves
// do not allocate.
const historyCap = 256

// NewGame starts a game on the deal under the rules. It refuses a deal that
// fails Deal.Validate and rules that fail Rules.Validate.
func NewGame(d Deal, r Rules) (*Game, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	if err := d.Validate(); err != nil {
		return nil, err
	}
	g := &Game{rules: r, hist: make([]undoRecord, 0, historyCap)}
	for i, cards := range d.Tableau {
		p := &g.tab[i]
		p.n = uint8(copy(p.cards[:], cards))
		p.down = p.n - 1
	}
	g.talonN = uint8(copy(g.talon[:], d.Stock))
	g.start()
	return g, nil
}

// start sets the opening score and status.
func (g *Game) start() {
	if g.rules.Scoring == ScoringVegas {
		g.score = -NumCards
	}
	g.updateStatus()
}

// Clone returns an independent copy of the game, history included.
func (g *Game) Clone() *Game {
	c := *g
	c.hist = append(make([]undoRecord, 0, max(cap(g.hist), historyCap)), g.hist...)
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

// Foundation returns how many cards are on the foundation of suit s.
func (g *Game) Foundation(s Suit) int { return int(g.found[s]) }

// FoundationTotal returns how many cards are on the foundations.
func (g *Game) FoundationTotal() int {
	return int(g.found[0]) + int(g.found[1]) + int(g.found[2]) + int(g.found[3])
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

// Pile returns pile n's (1..7) count of face-down cards and a copy of its
// face-up cards, bottom first.
func (g *Game) Pile(n int) (down int, up []Card) {
	p := &g.tab[n-1]
	return int(p.down), append([]Card(nil), p.up()...)
}

// CanUndo reports whether U would be accepted now.
func (g *Game) CanUndo() bool { return g.undoError() == nil }

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

// Standard and Vegas points of the rule book.
const (
	pointsWasteToTableau = 5
	pointsToFoundation   = 10
	pointsReveal         = 5
	pointsFromFoundation = -15
	pointsRecycleDraw1   = -100
	pointsRecycleDraw3   = -20
	freeRecyclesDraw3    = 3
	vegasPerCard         = 5
	vegasBuyIn           = -NumCards
	timePenaltyPoints    = 2
	timePenaltyEverySecs = 10
	timeBonusNumerator   = 700000
	timeBonusMinimumSecs = 30
)

// addScore applies a raw change with the standard zero floor and returns the
// change actually applied.
func (g *Game) addScore(raw int32) int32 {
	if g.rules.Scoring == ScoringStandard && g.score+raw < 0 {
		raw = -g.score
	}
	g.score += raw
	return raw
}

// points returns the raw score change of a move under the game's scoring.
func (g *Game) points(kind MoveKind, revealed bool) int32 {
	var p int32
	switch g.rules.Scoring {
	case ScoringStandard:
		switch kind {
		case WasteToTableau:
			p = pointsWasteToTableau
		case WasteToFoundation, TableauToFoundation:
			p = pointsToFoundation
		case FoundationToTableau:
			p = pointsFromFoundation
		case Recycle:
			if g.rules.Draw == 1 {
				p = pointsRecycleDraw1
			} else if g.recycles >= freeRecyclesDraw3 {
				p = pointsRecycleDraw3
			}
		}
		if revealed {
			p += pointsReveal
		}
	case ScoringVegas:
		switch kind {
		case WasteToFoundation, TableauToFoundation:
			p = vegasPerCard
		case FoundationToTableau:
			p = -vegasPerCard
		}
	}
	return p
}

// Apply validates m and, if it is legal, plays it: it turns up an exposed
// card, scores, records the move for undo and updates the status. It returns
// what the move did. A refused move changes nothing and returns an error that
// matches ErrIllegal: a rule sentinel or a *MoveError that names the cards.
// Apply does not allocate for a legal move while the history has room.
func (g *Game) Apply(m Move) (Events, error) {
	if g.status != Playing {
		return 0, ErrGameOver
	}
	if !m.wellFormed() {
		return 0, ErrMalformedMove
	}
	if m.Kind == Undo {
		if err := g.undoError(); err != nil {
			return 0, err
		}
		g.undo()
		g.moves++
		return Undid, nil
	}
	rec := undoRecord{move: m}
	var ev Events
	switch m.Kind {
	case Draw:
		left := g.talonN - g.wasteN
		if left == 0 {
			return 0, ErrStockEmpty
		}
		rec.n = min(left, uint8(g.rules.Draw))
		g.wasteN += rec.n
		rec.turned = true
		ev = Drew
	case Recycle:
		switch {
		case g.wasteN < g.talonN:
			return 0, ErrStockNotEmpty
		case g.wasteN == 0:
			return 0, ErrWasteEmpty
		case !g.canRecycle():
			return 0, ErrNoPassesLeft
		}
		rec.delta = g.addScore(g.points(Recycle, false))
		g.wasteN = 0
		g.recycles++
		ev = Recycled
	case WasteToTableau:
		c := g.WasteTop()
		if c == NoCard {
			return 0, ErrWasteEmpty
		}
		dst := &g.tab[m.To-1]
		if err := fits(m, c, dst); err != nil {
			return 0, err
		}
		g.takeWaste()
		dst.cards[dst.n] = c
		dst.n++
		rec.card = c
		rec.delta = g.addScore(g.points(m.Kind, false))
		ev = ToTableau
	case WasteToFoundation:
		c := g.WasteTop()
		if c == NoCard {
			return 0, ErrWasteEmpty
		}
		if err := g.fitsFoundation(m, c); err != nil {
			return 0, err
		}
		g.takeWaste()
		g.found[c.Suit()]++
		rec.card = c
		rec.delta = g.addScore(g.points(m.Kind, false))
		ev = ToFoundation
	case TableauToFoundation:
		src := &g.tab[m.From-1]
		c := src.top()
		if c == NoCard {
			return 0, &MoveError{Move: m, Err: ErrPileEmpty, Detail: fmt.Sprintf("pile %d", m.From)}
		}
		if err := g.fitsFoundation(m, c); err != nil {
			return 0, err
		}
		src.n--
		src.cards[src.n] = NoCard
		g.found[c.Suit()]++
		rec.card = c
		rec.revealed = src.reveal()
		rec.delta = g.addScore(g.points(m.Kind, rec.revealed))
		ev = ToFoundation
	case TableauToTableau:
		k, err := g.runFor(m)
		if err != nil {
			return 0, err
		}
		src, dst := &g.tab[m.From-1], &g.tab[m.To-1]
		copy(dst.cards[dst.n:], src.cards[src.n-k:src.n])
		dst.n += k
		src.n -= k
		clear(src.cards[src.n : src.n+k])
		rec.n = k
		rec.revealed = src.reveal()
		rec.delta = g.addScore(g.points(m.Kind, rec.revealed))
		ev = ToTableau
	case FoundationToTableau:
		if !g.rules.FoundationToTableau {
			return 0, ErrNoFoundationMoves
		}
		s := Suit(m.From)
		if g.found[s] == 0 {
			return 0, &MoveError{Move: m, Err: ErrFoundationEmpty, Detail: "foundation " + s.String()}
		}
		c := NewCard(int(g.found[s]), s)
		dst := &g.tab[m.To-1]
		if err := fits(m, c, dst); err != nil {
			return 0, err
		}
		g.found[s]--
		dst.cards[dst.n] = c
		dst.n++
		rec.delta = g.addScore(g.points(m.Kind, false))
		ev = FromFoundation | ToTableau
	}
	if rec.revealed {
		rec.turned = true
		ev |= Revealed
	}
	g.hist = append(g.hist, rec)
	g.moves++
	g.updateStatus()
	switch g.status {
	case Won:
		ev |= GameWon
	case Stuck:
		ev |= GameStuck
	}
	return ev, nil
}

// takeWaste removes the waste's top card from the talon.
func (g *Game) takeWaste() {
	copy(g.talon[g.wasteN-1:], g.talon[g.wasteN:g.talonN])
	g.wasteN--
	g.talonN--
	g.talon[g.talonN] = NoCard
}

// fits checks that card c may go on pile dst.
func fits(m Move, c Card, dst *pile) error {
	t := dst.top()
	if t == NoCard {
		if c.Rank() != NumRanks {
			return &MoveError{Move: m, Err: ErrKingOnly, Detail: fmt.Sprintf("%v to empty pile %d", c, m.To)}
		}
		return nil
	}
	if !c.goesOn(t) {
		return &MoveError{Move: m, Err: ErrBuild, Detail: fmt.Sprintf("%v on %v", c, t)}
	}
	return nil
}

// fitsFoundation checks that card c may go up to its foundation.
func (g *Game) fitsFoundation(m Move, c Card) error {
	have := g.found[c.Suit()]
	if int(have)+1 == c.Rank() {
		return nil
	}
	if have == 0 {
		return &MoveError{Move: m, Err: ErrFoundationOrder, Detail: fmt.Sprintf("%v to the empty %v foundation", c, c.Suit())}
	}
	return &MoveError{Move: m, Err: ErrFoundationOrder, Detail: fmt.Sprintf("%v on %v", c, NewCard(int(have), c.Suit()))}
}

// runFor checks a Tn-Tm move and returns the number of cards it moves.
func (g *Game) runFor(m Move) (uint8, error) {
	if m.From == m.To {
		return 0, &MoveError{Move: m, Err: ErrSamePile, Detail: fmt.Sprintf("pile %d", m.From)}
	}
	src, dst := &g.tab[m.From-1], &g.tab[m.To-1]
	run := src.run()
	if run == 0 {
		return 0, &MoveError{Move: m, Err: ErrPileEmpty, Detail: fmt.Sprintf("pile %d", m.From)}
	}
	k := fitLength(src.up(), run, dst.top())
	if k == 0 {
		return 0, g.noFit(m, src, run, dst)
	}
	if m.Count != 0 && int(m.Count) != k {
		return 0, &MoveError{Move: m, Err: ErrRunCount, Detail: fmt.Sprintf("asked to move %d, but %d fit", m.Count, k)}
	}
	return uint8(k), nil
}

// noFit explains why no part of the run fits on dst.
func (g *Game) noFit(m Move, src *pile, run int, dst *pile) error {
	base, top := src.cards[int(src.n)-run], src.top()
	t := dst.top()
	if run == 1 {
		if t == NoCard {
			return &MoveError{Move: m, Err: ErrKingOnly, Detail: fmt.Sprintf("%v to empty pile %d", top, m.To)}
		}
		return &MoveError{Move: m, Err: ErrBuild, Detail: fmt.Sprintf("%v on %v", top, t)}
	}
	if t == NoCard {
		return &MoveError{Move: m, Err: ErrKingOnly, Detail: fmt.Sprintf("run %v..%v to empty pile %d", base, top, m.To)}
	}
	return &MoveError{Move: m, Err: ErrNoRunFits, Detail: fmt.Sprintf("run %v..%v on %v", base, top, t)}
}

// undoError says why U would be refused now, or returns nil.
func (g *Game) undoError() error {
	switch {
	case g.status != Playing:
		return ErrGameOver
	case g.rules.Undo == UndoOff:
		return ErrUndoOff
	case len(g.hist) == 0:
		return ErrNothingToUndo
	case g.rules.Undo == UndoNoReveal && g.hist[len(g.hist)-1].turned:
		return ErrUndoReveal
	}
	return nil
}

// undo takes the last move back exactly: cards, face-down state and score.
func (g *Game) undo() {
	rec := g.hist[len(g.hist)-1]
	g.hist = g.hist[:len(g.hist)-1]
	g.score -= rec.delta
	m := rec.move
	switch m.Kind {
	case Draw:
		g.wasteN -= rec.n
	case Recycle:
		g.wasteN = g.talonN
		g.recycles--
	case WasteToTableau:
		dst := &g.tab[m.To-1]
		dst.n--
		dst.cards[dst.n] = NoCard
		g.putWaste(rec.card)
	case WasteToFoundation:
		g.found[rec.card.Suit()]--
		g.putWaste(rec.card)
	case TableauToFoundation:
		src := &g.tab[m.From-1]
		if rec.revealed {
			src.down++
		}
		src.cards[src.n] = rec.card
		src.n++
		g.found[rec.card.Suit()]--
	case TableauToTableau:
		src, dst := &g.tab[m.From-1], &g.tab[m.To-1]
		if rec.revealed {
			src.down++
		}
		copy(src.cards[src.n:], dst.cards[dst.n-rec.n:dst.n])
		src.n += rec.n
		dst.n -= rec.n
		clear(dst.cards[dst.n : dst.n+rec.n])
	case FoundationToTableau:
		dst := &g.tab[m.To-1]
		dst.n--
		dst.cards[dst.n] = NoCard
		g.found[m.From]++
	}
}

// putWaste puts c back on top of the waste.
func (g *Game) putWaste(c Card) {
	copy(g.talon[g.wasteN+1:g.talonN+1], g.talon[g.wasteN:g.talonN])
	g.talon[g.wasteN] = c
	g.wasteN++
	g.talonN++
}

// A Checkpoint is a saved state of a game, for a server that must take a
// move back when it could not make the move durable.
type Checkpoint struct{ g Game }

// Checkpoint saves the game's state. Rollback to it is exact as long as at
// most one move was applied since.
func (g *Game) Checkpoint() Checkpoint { return Checkpoint{*g} }

// Rollback returns the game to c, which must come from the same game with at
// most one move applied since (the history's storage is shared).
func (g *Game) Rollback(c Checkpoint) { *g = c.g }
