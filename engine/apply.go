package engine

import (
	"fmt"
)

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
	if !m.wellFormed() || m.highestPile() > g.rules.Game.spec().piles {
		return 0, ErrMalformedMove
	}
	switch m.Kind {
	case Undo:
		if err := g.undoError(); err != nil {
			return 0, err
		}
		g.undo()
		g.redo++
		g.moves++
		return Undid, nil
	case Redo:
		if err := g.redoError(); err != nil {
			return 0, err
		}
		// The position is the one the move was first played in, so it is
		// legal again and scores the same.
		left := g.redo - 1
		ev, err := g.play(g.hist[:len(g.hist)+1][len(g.hist)].move)
		if err != nil {
			return 0, err
		}
		g.redo = left
		return ev | Redid, nil
	}
	return g.play(m)
}

// play applies a move of play (not U or Y) as Apply does; it clears what
// could be redone.
func (g *Game) play(m Move) (Events, error) {
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
		if err := g.fits(m, c, dst); err != nil {
			return 0, err
		}
		g.takeWaste()
		dst.cards[dst.n] = c
		dst.n++
		rec.delta = g.addScore(g.points(m.Kind, false))
		ev = ToTableau
	case WasteToFoundation:
		c := g.WasteTop()
		if c == NoCard {
			return 0, ErrWasteEmpty
		}
		f, err := g.fitsFoundation(m, c)
		if err != nil {
			return 0, err
		}
		g.takeWaste()
		g.found[f]++
		rec.fnd = uint8(f)
		rec.delta = g.addScore(g.points(m.Kind, false))
		ev = ToFoundation
	case TableauToFoundation:
		src := &g.tab[m.From-1]
		c := src.top()
		if c == NoCard {
			return 0, &MoveError{Move: m, Err: ErrPileEmpty, Detail: fmt.Sprintf("pile %d", m.From)}
		}
		f, err := g.fitsFoundation(m, c)
		if err != nil {
			return 0, err
		}
		src.n--
		src.cards[src.n] = NoCard
		g.found[f]++
		rec.fnd = uint8(f)
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
		dst := &g.tab[m.To-1]
		f := int(s)
		// Of two foundations of a suit the target decides, as it decides a
		// run's length: only one top fits unless both are the same card,
		// which then comes from the second, so that it never holds more.
		if g.found[4+s] > 0 && (g.found[4+s] == g.found[s] || g.cardFits(g.foundationTop(4+int(s)), dst)) {
			f = 4 + int(s)
		}
		c := g.foundationTop(f)
		if err := g.fits(m, c, dst); err != nil {
			return 0, err
		}
		g.found[f]--
		dst.cards[dst.n] = c
		dst.n++
		rec.fnd = uint8(f)
		rec.delta = g.addScore(g.points(m.Kind, false))
		ev = FromFoundation | ToTableau
	}
	if rec.revealed {
		rec.turned = true
		ev |= Revealed
	}
	g.hist = append(g.hist, rec)
	g.redo = 0
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
func (g *Game) fits(m Move, c Card, dst *pile) error {
	sp := g.rules.Game.spec()
	t := dst.top()
	if t == NoCard {
		if sp.empty&bitOf[c] == 0 {
			return &MoveError{Move: m, Err: ErrKingOnly, Detail: fmt.Sprintf("%v to empty pile %d", c, m.To)}
		}
		return nil
	}
	if !sp.goesOn(c, t) {
		return &MoveError{Move: m, Err: sp.buildRule, Detail: fmt.Sprintf("%v on %v", c, t)}
	}
	return nil
}

// cardFits reports whether card c may go on pile dst, as fits does,
// without making an error.
func (g *Game) cardFits(c Card, dst *pile) bool {
	sp := g.rules.Game.spec()
	if t := dst.top(); t != NoCard {
		return sp.goesOn(c, t)
	}
	return sp.empty&bitOf[c] != 0
}

// foundationFor returns the foundation that takes card c next, or −1: its
// suit's, or in Double Klondike the second of its suit when the first does
// not take it. A card that both take goes to the first, so the first never
// holds fewer cards than the second.
func (g *Game) foundationFor(c Card) int {
	s, r := c.Suit(), uint8(c.Rank())
	next := &foundRank[g.base&15]
	if next[g.found[s]+1] == r {
		return int(s)
	}
	if g.rules.Game == DoubleKlondike && next[g.found[4+s]+1] == r {
		return 4 + int(s)
	}
	return -1
}

// fitsFoundation checks that card c may go up to a foundation and returns
// the foundation.
func (g *Game) fitsFoundation(m Move, c Card) (int, error) {
	if f := g.foundationFor(c); f >= 0 {
		return f, nil
	}
	rule := ErrFoundationOrder
	if g.rules.Game == Whitehead {
		rule = ErrFoundationBase
	}
	f := int(c.Suit())
	if g.found[f] == NumRanks && g.rules.Game == DoubleKlondike {
		f += 4
	}
	if g.found[f] == 0 {
		return 0, &MoveError{Move: m, Err: rule, Detail: fmt.Sprintf("%v to the empty %v foundation", c, c.Suit())}
	}
	return 0, &MoveError{Move: m, Err: rule, Detail: fmt.Sprintf("%v on %v", c, g.foundationTop(f))}
}

// runFor checks a Tn-Tm move and returns the number of cards it moves.
func (g *Game) runFor(m Move) (uint8, error) {
	if m.From == m.To {
		return 0, &MoveError{Move: m, Err: ErrSamePile, Detail: fmt.Sprintf("pile %d", m.From)}
	}
	src, dst := &g.tab[m.From-1], &g.tab[m.To-1]
	sp := g.rules.Game.spec()
	run := sp.runLength(src.up())
	if run == 0 {
		return 0, &MoveError{Move: m, Err: ErrPileEmpty, Detail: fmt.Sprintf("pile %d", m.From)}
	}
	if m.Count != 0 && dst.n == 0 && sp.anyToEmpty() {
		// An empty pile that takes any card takes any upper part of the run.
		if int(m.Count) > run {
			return 0, &MoveError{Move: m, Err: ErrRunCount, Detail: fmt.Sprintf("asked to move %d, but the run has %d", m.Count, run)}
		}
		return m.Count, nil
	}
	k := sp.fitLength(src.up(), run, dst.top())
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
		return &MoveError{Move: m, Err: g.rules.Game.spec().buildRule, Detail: fmt.Sprintf("%v on %v", top, t)}
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

// redoError says why Y would be refused now, or returns nil. Redo follows
// the undo policy: only a move U took back can be played again, and under
// no_reveal U never takes back a move that turned a card face up.
func (g *Game) redoError() error {
	switch {
	case g.status != Playing:
		return ErrGameOver
	case g.rules.Undo == UndoOff:
		return ErrUndoOff
	case g.redo == 0:
		return ErrNothingToRedo
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
		c := dst.cards[dst.n]
		dst.cards[dst.n] = NoCard
		g.putWaste(c)
	case WasteToFoundation:
		c := g.foundationTop(int(rec.fnd))
		g.found[rec.fnd]--
		g.putWaste(c)
	case TableauToFoundation:
		src := &g.tab[m.From-1]
		if rec.revealed {
			src.down++
		}
		src.cards[src.n] = g.foundationTop(int(rec.fnd))
		src.n++
		g.found[rec.fnd]--
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
		g.found[rec.fnd]++
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
type Checkpoint struct {
	g Game
	// next is the first redo record, which one new move overwrites in the
	// shared history.
	next undoRecord
}

// Checkpoint saves the game's state. Rollback to it is exact as long as at
// most one move was applied since.
func (g *Game) Checkpoint() Checkpoint {
	c := Checkpoint{g: *g}
	if g.redo > 0 {
		c.next = g.hist[:len(g.hist)+1][len(g.hist)]
	}
	return c
}

// Rollback returns the game to c, which must come from the same game with at
// most one move applied since (the history's storage is shared).
func (g *Game) Rollback(c Checkpoint) {
	*g = c.g
	if g.redo > 0 {
		g.hist[:len(g.hist)+1][len(g.hist)] = c.next
	}
}
