package engine

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// The position text form, like chess's FEN, writes any position on one line
// of five fields separated by spaces:
//
//	piles talon foundations recycles score
//
//   - piles: the seven tableau piles (nine in Double Klondike), pile 1
//     first, separated by '/'; each is its face-down cards, '|', then its
//     face-up cards, bottom first.
//   - talon: the waste, bottom first, '|', then the stock in draw order.
//   - foundations: four characters for clubs, diamonds, hearts and spades,
//     each the rank of the foundation's top card or '-' when it is empty;
//     in Double Klondike eight, the first foundation of each suit then the
//     second; in Whitehead the base rank and ':' come first, as in "5:7--5".
//   - recycles: how many times the waste went back to the stock.
//   - score: the running move points.
//
// Cards are canonical two-character tokens written without separators. The
// opening position of deal #1 reads:
//
//	|QH/7H|TS/5D9S|5C/JCKCKH|4C/9HKDQCKS|3C/2D5HAD2SQD|AH/JD7C5S3H9DJS|AS |4HAC4D7S3STD4STH8H2CJH7D6D8S8DQS6C3D8CTC6S9C2H6H ---- 0 0
//
// The form holds face-down cards and the stock order: it is for fixtures,
// logs and tools, never for players during a round.

// ErrBadPosition is wrapped by every error of ParseGame.
var ErrBadPosition = errors.New("bad position")

// MarshalText returns the position's text form.
func (g *Game) MarshalText() ([]byte, error) { return g.AppendText(nil), nil }

// String returns the position's text form.
func (g *Game) String() string { return string(g.AppendText(nil)) }

// AppendText appends the position's text form to b.
func (g *Game) AppendText(b []byte) []byte {
	for i := range g.piles() {
		p := &g.tab[i]
		if i > 0 {
			b = append(b, '/')
		}
		b = appendCards(b, p.cards[:p.down])
		b = append(b, '|')
		b = appendCards(b, p.up())
	}
	b = append(b, ' ')
	b = appendCards(b, g.talon[:g.wasteN])
	b = append(b, '|')
	b = appendCards(b, g.talon[g.wasteN:g.talonN])
	b = append(b, ' ')
	if g.rules.Game == Whitehead {
		b = append(b, rankLetters[g.base-1], ':')
	}
	for f := range g.rules.Game.Foundations() {
		if c := g.foundationTop(f); c == NoCard {
			b = append(b, '-')
		} else {
			b = append(b, rankLetters[c.Rank()-1])
		}
	}
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(g.recycles), 10)
	b = append(b, ' ')
	return strconv.AppendInt(b, int64(g.score), 10)
}

func appendCards(b []byte, cards []Card) []byte {
	for _, c := range cards {
		b = append(b, c.String()...)
	}
	return b
}

// ParseGame returns a game in the position that text describes, under rules
// r, with no history to undo and no moves counted. Every error wraps
// ErrBadPosition and names the problem.
func ParseGame(text string, r Rules) (*Game, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	g := &Game{rules: r, hist: make([]undoRecord, 0, historyCap), base: 1}
	if err := g.parse(text); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadPosition, err)
	}
	g.updateStatus()
	return g, nil
}

// UnmarshalText sets the position from its text form, keeping the rules
// (the default rules if g is new) and clearing the history.
func (g *Game) UnmarshalText(b []byte) error {
	r := g.rules
	if r.Validate() != nil {
		r = DefaultRules()
	}
	ng, err := ParseGame(string(b), r)
	if err != nil {
		return err
	}
	*g = *ng
	return nil
}

func (g *Game) parse(text string) error {
	f := strings.Fields(text)
	if len(f) != 5 {
		return fmt.Errorf("want 5 fields (piles talon foundations recycles score), have %d", len(f))
	}
	sp := g.rules.Game.spec()
	decks := sp.decks
	// seen counts each card's copies: one deck, or two in Double Klondike.
	var seen [NumCards]uint8
	cards := func(s, where string) ([]Card, error) {
		if len(s)%2 != 0 {
			return nil, fmt.Errorf("%s: %q is not a run of two-character card tokens", where, s)
		}
		out := make([]Card, 0, len(s)/2)
		for i := 0; i < len(s); i += 2 {
			c, ok := parseCard(s[i : i+2])
			if !ok {
				return nil, fmt.Errorf("%s: bad card token %q", where, s[i:i+2])
			}
			if seen[c.Index()] == decks {
				if decks == 1 {
					return nil, fmt.Errorf("%s: duplicate card %v", where, c)
				}
				return nil, fmt.Errorf("%s: card %v a third time", where, c)
			}
			seen[c.Index()]++
			out = append(out, c)
		}
		return out, nil
	}
	piles := strings.Split(f[0], "/")
	if len(piles) != int(sp.piles) {
		return fmt.Errorf("want %d piles separated by '/', have %d", sp.piles, len(piles))
	}
	maxDown := int(sp.piles) - 1
	if sp.faceUp {
		maxDown = 0
	}
	for i, ps := range piles {
		where := fmt.Sprintf("pile %d", i+1)
		downS, upS, ok := strings.Cut(ps, "|")
		if !ok {
			return fmt.Errorf("%s: want face-down cards, '|', face-up cards", where)
		}
		down, err := cards(downS, where)
		if err != nil {
			return err
		}
		up, err := cards(upS, where)
		if err != nil {
			return err
		}
		if len(down) > 0 && len(up) == 0 {
			return fmt.Errorf("%s: a face-down card is on top", where)
		}
		if len(down) > maxDown {
			return fmt.Errorf("%s: %d face-down cards, at most %d", where, len(down), maxDown)
		}
		if !sp.faceUp {
			// Face-up cards are built on each other, except Whitehead's,
			// which are dealt face up in any order.
			for j := 1; j < len(up); j++ {
				if !sp.goesOn(up[j], up[j-1]) {
					return fmt.Errorf("%s: face-up %v does not go on %v", where, up[j], up[j-1])
				}
			}
		}
		p := &g.tab[i]
		p.n = uint8(copy(p.cards[:], down))
		p.down = p.n
		p.n += uint8(copy(p.cards[p.n:], up))
		// Building on the card at place j (from 1) adds at most its rank
		// less one, so the pile can never outgrow its array.
		for j, c := range p.cards[:p.n] {
			if j+c.Rank() > maxPile {
				return fmt.Errorf("%s: %v at place %d leaves room to build past %d cards", where, c, j+1, maxPile)
			}
		}
	}
	wasteS, stockS, ok := strings.Cut(f[1], "|")
	if !ok {
		return errors.New("talon: want waste cards, '|', stock cards")
	}
	waste, err := cards(wasteS, "waste")
	if err != nil {
		return err
	}
	stock, err := cards(stockS, "stock")
	if err != nil {
		return err
	}
	if len(waste)+len(stock) > int(sp.stock) {
		return fmt.Errorf("talon: %d cards, at most %d", len(waste)+len(stock), sp.stock)
	}
	g.wasteN = uint8(copy(g.talon[:], waste))
	g.talonN = g.wasteN + uint8(copy(g.talon[g.wasteN:], stock))
	fs := f[2]
	if g.rules.Game == Whitehead {
		b, rest, ok := strings.Cut(fs, ":")
		base, _ := parseRank(b + " ")
		if !ok || len(b) != 1 || base == 0 {
			return fmt.Errorf("foundations: want the base rank, ':', then 4 ranks or '-' (C D H S), have %q", fs)
		}
		g.base, fs = uint8(base), rest
	}
	nf := int(decks) * NumSuits
	if len(fs) != nf {
		if decks == 2 {
			return fmt.Errorf("foundations: want 8 ranks or '-' (C D H S, then C D H S), have %q", fs)
		}
		return fmt.Errorf("foundations: want 4 ranks or '-' (C D H S), have %q", fs)
	}
	for fi := range nf {
		ch := fs[fi]
		s := Suit(fi & 3)
		if ch == '-' {
			continue
		}
		rank, _ := parseRank(fs[fi : fi+1])
		if rank == 0 {
			return fmt.Errorf("foundations: bad rank %q for %v", ch, s)
		}
		n := foundPos[g.base][rank]
		for k := uint8(1); k <= n; k++ {
			c := NewCard(int(foundRank[g.base][k]), s)
			if seen[c.Index()] == decks {
				return fmt.Errorf("foundations: %v is also elsewhere", c)
			}
			seen[c.Index()]++
		}
		g.found[fi] = n
	}
	// The second foundation of a suit never holds more than the first.
	for s := range NumSuits {
		if g.found[4+s] > g.found[s] {
			g.found[s], g.found[4+s] = g.found[4+s], g.found[s]
		}
	}
	for i, n := range seen {
		if n != decks {
			if decks == 1 {
				return fmt.Errorf("card %v is missing", CardAt(i))
			}
			return fmt.Errorf("card %v appears %d times, want 2", CardAt(i), n)
		}
	}
	rec, err := strconv.ParseInt(f[3], 10, 32)
	if err != nil || rec < 0 {
		return fmt.Errorf("recycles: want a whole number ≥ 0, have %q", f[3])
	}
	if lim := g.rules.Recycles(); lim >= 0 && int(rec) > lim {
		return fmt.Errorf("recycles: %d, but the rules allow %d", rec, lim)
	}
	g.recycles = int32(rec)
	score, err := strconv.ParseInt(f[4], 10, 32)
	if err != nil {
		return fmt.Errorf("score: want a whole number, have %q", f[4])
	}
	if g.rules.Scoring == ScoringStandard && score < 0 {
		return fmt.Errorf("score: %d is below the standard floor of 0", score)
	}
	g.score = int32(score)
	return nil
}
