package engine_test

// The reference model of the property tests: a position as the rule book
// (docs/rules.md) describes it, for every variant, parsed from the engine's
// text form independently of the engine's parser, with the legal moves,
// their effects, the score and stuck detection written from the rule book
// without the engine's code.

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"klondike/engine"
)

// refPos is a position as the rule book describes it.
type refPos struct {
	v            engine.Variant
	down, up     [][]engine.Card // per pile, bottom first
	waste, stock []engine.Card   // waste bottom first; stock in draw order
	// found holds each foundation's count: clubs, diamonds, hearts,
	// spades, then in Double Klondike the second foundation of each suit.
	found    []int
	base     int // the rank every foundation starts at
	recycles int
	score    int
}

const refRanks = "A23456789TJQK"

// refPiles, refDecks: the rule book's table of the games.
func refPiles(v engine.Variant) int {
	if v == engine.DoubleKlondike {
		return 9
	}
	return 7
}

func refDecks(v engine.Variant) int {
	if v == engine.DoubleKlondike {
		return 2
	}
	return 1
}

func refCards(s string) ([]engine.Card, error) {
	if len(s)%2 != 0 {
		return nil, fmt.Errorf("odd card run %q", s)
	}
	var cs []engine.Card
	for i := 0; i < len(s); i += 2 {
		c, err := engine.ParseCard(s[i : i+2])
		if err != nil {
			return nil, err
		}
		if c.String() != s[i:i+2] {
			return nil, fmt.Errorf("token %q is not canonical", s[i:i+2])
		}
		cs = append(cs, c)
	}
	return cs, nil
}

// parseRefPos reads the engine's text form (docs/notation.md).
func parseRefPos(text string, v engine.Variant) (*refPos, error) {
	f := strings.Split(text, " ")
	if len(f) != 5 {
		return nil, fmt.Errorf("%d fields", len(f))
	}
	p := refPos{v: v, base: 1}
	piles := strings.Split(f[0], "/")
	if len(piles) != refPiles(v) {
		return nil, fmt.Errorf("%d piles", len(piles))
	}
	p.down = make([][]engine.Card, len(piles))
	p.up = make([][]engine.Card, len(piles))
	var err error
	for i, ps := range piles {
		d, u, ok := strings.Cut(ps, "|")
		if !ok {
			return nil, fmt.Errorf("pile %d has no '|'", i+1)
		}
		if p.down[i], err = refCards(d); err != nil {
			return nil, err
		}
		if p.up[i], err = refCards(u); err != nil {
			return nil, err
		}
	}
	w, s, ok := strings.Cut(f[1], "|")
	if !ok {
		return nil, errors.New("talon has no '|'")
	}
	if p.waste, err = refCards(w); err != nil {
		return nil, err
	}
	if p.stock, err = refCards(s); err != nil {
		return nil, err
	}
	fs := f[2]
	if v == engine.Whitehead {
		if len(fs) < 2 || fs[1] != ':' {
			return nil, fmt.Errorf("foundations %q have no base", fs)
		}
		p.base = strings.IndexByte(refRanks, fs[0]) + 1
		fs = fs[2:]
	}
	if len(fs) != 4*refDecks(v) || p.base == 0 {
		return nil, fmt.Errorf("foundations %q", f[2])
	}
	p.found = make([]int, len(fs))
	for i := range fs {
		if fs[i] != '-' {
			r := strings.IndexByte(refRanks, fs[i]) + 1
			if r == 0 {
				return nil, fmt.Errorf("foundations %q", f[2])
			}
			p.found[i] = (r-p.base+13)%13 + 1 // top rank r is card number n
		}
	}
	if p.recycles, err = strconv.Atoi(f[3]); err != nil {
		return nil, err
	}
	if p.score, err = strconv.Atoi(f[4]); err != nil {
		return nil, err
	}
	return &p, nil
}

func (p *refPos) clone() *refPos {
	q := *p
	q.down = make([][]engine.Card, len(p.down))
	q.up = make([][]engine.Card, len(p.up))
	for i := range p.down {
		q.down[i] = slices.Clone(p.down[i])
		q.up[i] = slices.Clone(p.up[i])
	}
	q.waste = slices.Clone(p.waste)
	q.stock = slices.Clone(p.stock)
	q.found = slices.Clone(p.found)
	return &q
}

// rankOn returns the rank of card number n of a foundation.
func (p *refPos) rankOn(n int) int { return (p.base-1+n-1)%13 + 1 }

// foundTop returns foundation i's top card, or NoCard.
func (p *refPos) foundTop(i int) engine.Card {
	if p.found[i] == 0 {
		return engine.NoCard
	}
	return engine.NewCard(p.rankOn(p.found[i]), engine.Suit(i%4))
}

// layout writes the first four fields of the text form (all but the score).
func (p *refPos) layout() string {
	var b strings.Builder
	cards := func(cs []engine.Card) {
		for _, c := range cs {
			b.WriteString(c.String())
		}
	}
	for i := range p.down {
		if i > 0 {
			b.WriteByte('/')
		}
		cards(p.down[i])
		b.WriteByte('|')
		cards(p.up[i])
	}
	b.WriteByte(' ')
	cards(p.waste)
	b.WriteByte('|')
	cards(p.stock)
	b.WriteByte(' ')
	if p.v == engine.Whitehead {
		b.WriteByte(refRanks[p.base-1])
		b.WriteByte(':')
	}
	for i, n := range p.found {
		if n == 0 {
			b.WriteByte('-')
		} else {
			b.WriteByte(refRanks[p.foundTop(i).Rank()-1])
		}
	}
	b.WriteByte(' ')
	b.WriteString(strconv.Itoa(p.recycles))
	return b.String()
}

// textLayout drops the score field of an engine text form.
func textLayout(text string) string { return text[:strings.LastIndexByte(text, ' ')] }

// check verifies the invariants of any position reached by play from a deal.
func (p *refPos) check() error {
	var count [engine.NumCards]int
	add := func(cs []engine.Card) {
		for _, c := range cs {
			count[c.Index()]++
		}
	}
	for i := range p.down {
		add(p.down[i])
		add(p.up[i])
		dealt := i
		if p.v == engine.Whitehead {
			dealt = 0
		}
		if len(p.down[i]) > dealt {
			return fmt.Errorf("pile %d has %d face-down cards, it was dealt %d", i+1, len(p.down[i]), dealt)
		}
		if len(p.down[i]) > 0 && len(p.up[i]) == 0 {
			return fmt.Errorf("pile %d has a face-down card on top", i+1)
		}
		if p.v != engine.Whitehead {
			for j := 1; j < len(p.up[i]); j++ {
				if !refGoesOn(p.v, p.up[i][j], p.up[i][j-1]) {
					return fmt.Errorf("pile %d: face-up %v on %v is out of sequence", i+1, p.up[i][j], p.up[i][j-1])
				}
			}
		}
	}
	add(p.waste)
	add(p.stock)
	stock := 52*refDecks(p.v) - len(p.down)*(len(p.down)+1)/2
	if p.v == engine.Whitehead {
		stock--
	}
	if n := len(p.waste) + len(p.stock); n > stock {
		return fmt.Errorf("talon has %d cards", n)
	}
	for i := range p.found {
		if i >= 4 && p.found[i] > p.found[i-4] {
			return fmt.Errorf("second foundation %d holds more than the first", i-3)
		}
		for n := 1; n <= p.found[i]; n++ {
			count[engine.NewCard(p.rankOn(n), engine.Suit(i%4)).Index()]++
		}
	}
	for i, n := range count {
		if n != refDecks(p.v) {
			return fmt.Errorf("card %v appears %d times", engine.CardAt(i), n)
		}
	}
	return nil
}

func refTop(cs []engine.Card) engine.Card {
	if len(cs) == 0 {
		return engine.NoCard
	}
	return cs[len(cs)-1]
}

// refGoesOn is the building rule of each game, written from the rule book.
func refGoesOn(v engine.Variant, c, t engine.Card) bool {
	if c.Rank()+1 != t.Rank() {
		return false
	}
	switch v {
	case engine.ThumbAndPouch:
		return c.Suit() != t.Suit()
	case engine.Whitehead:
		return c.Red() == t.Red()
	}
	return c.Red() != t.Red()
}

// refInRun reports whether c stays in one movable run on t: in Whitehead a
// run is of one suit; elsewhere a run is built by the building rule.
func refInRun(v engine.Variant, c, t engine.Card) bool {
	if v == engine.Whitehead {
		return c.Rank()+1 == t.Rank() && c.Suit() == t.Suit()
	}
	return refGoesOn(v, c, t)
}

// refAnyToEmpty: in Thumb and Pouch and Whitehead an empty pile takes any
// card; in Klondike and Double Klondike only a king.
func refAnyToEmpty(v engine.Variant) bool {
	return v == engine.ThumbAndPouch || v == engine.Whitehead
}

func (p *refPos) fitsPile(c engine.Card, i int) bool {
	if len(p.up[i]) == 0 {
		return len(p.down[i]) == 0 && (refAnyToEmpty(p.v) || c.Rank() == 13)
	}
	return refGoesOn(p.v, c, refTop(p.up[i]))
}

// foundationFor returns the foundation that takes c: its suit's first, or
// the second when the first does not; −1 for none.
func (p *refPos) foundationFor(c engine.Card) int {
	if c == engine.NoCard {
		return -1
	}
	for i := int(c.Suit()); i < len(p.found); i += 4 {
		if p.found[i] < 13 && p.rankOn(p.found[i]+1) == c.Rank() {
			return i
		}
	}
	return -1
}

func (p *refPos) fitsFoundation(c engine.Card) bool { return p.foundationFor(c) >= 0 }

// run returns the length of pile i's movable run.
func (p *refPos) run(i int) int {
	up := p.up[i]
	n := 0
	for n < len(up) && (n == 0 || refInRun(p.v, up[len(up)-n], up[len(up)-n-1])) {
		n++
	}
	return n
}

// runFit returns how many lengths k make the top k face-up cards of pile i
// part of its run whose bottom card fits pile j, and the last such k.
func (p *refPos) runFit(i, j int) (fits, k int) {
	up := p.up[i]
	for n := 1; n <= p.run(i); n++ {
		if p.fitsPile(up[len(up)-n], j) {
			fits, k = fits+1, n
		}
	}
	return fits, k
}

func refCanRecycle(r engine.Rules, recycles int) bool {
	return r.Passes == 0 || recycles < r.Passes-1
}

// downFrom returns the foundation Fs-Tn takes a card from: of a suit's two,
// the second when both tops are the same card or the second's fits.
func (p *refPos) downFrom(s engine.Suit, to int) int {
	f := int(s)
	if g := f + 4; g < len(p.found) && p.found[g] > 0 && (p.found[g] == p.found[f] || p.fitsPile(p.foundTop(g), to)) {
		return g
	}
	return f
}

// legal reports whether the rule book allows m (U and Y excepted) and, for
// a tableau move, how many cards it moves.
func (p *refPos) legal(r engine.Rules, m engine.Move) (bool, int) {
	n := len(p.up)
	if max(int(m.From), int(m.To)) > n && m.Kind != engine.FoundationToTableau || int(m.To) > n {
		return false, 0
	}
	switch m.Kind {
	case engine.Draw:
		return len(p.stock) > 0, 0
	case engine.Recycle:
		return len(p.stock) == 0 && len(p.waste) > 0 && refCanRecycle(r, p.recycles), 0
	case engine.WasteToFoundation:
		return p.fitsFoundation(refTop(p.waste)), 0
	case engine.WasteToTableau:
		return len(p.waste) > 0 && p.fitsPile(refTop(p.waste), int(m.To)-1), 0
	case engine.TableauToFoundation:
		return p.fitsFoundation(refTop(p.up[m.From-1])), 0
	case engine.TableauToTableau:
		i, j := int(m.From)-1, int(m.To)-1
		if i == j {
			return false, 0
		}
		if run := p.run(i); run > 0 && refAnyToEmpty(p.v) && len(p.up[j]) == 0 && len(p.down[j]) == 0 {
			// Any upper part of the run, the whole run when no count is given.
			if m.Count == 0 {
				return true, run
			}
			return int(m.Count) <= run, int(m.Count)
		}
		fits, k := p.runFit(i, j)
		if fits != 1 || (m.Count != 0 && int(m.Count) != k) {
			return false, 0
		}
		return true, k
	case engine.FoundationToTableau:
		f := p.downFrom(engine.Suit(m.From), int(m.To)-1)
		return r.FoundationToTableau && p.found[f] > 0 && p.fitsPile(p.foundTop(f), int(m.To)-1), 0
	}
	return false, 0
}

// legalList lists the legal moves but U in the engine's documented order:
// D, R, W-F, W-Tn, Tn-F, Tn-Tm (each shorter part of a run after it when it
// goes to an empty pile that takes any card), Fs-Tn.
func (p *refPos) legalList(r engine.Rules) []engine.Move {
	var ms []engine.Move
	try := func(m engine.Move) {
		if ok, _ := p.legal(r, m); ok {
			ms = append(ms, m)
		}
	}
	n := len(p.up)
	try(engine.DrawMove())
	try(engine.RecycleMove())
	try(engine.WasteUp())
	for i := 1; i <= n; i++ {
		try(engine.WasteToPile(i))
	}
	for i := 1; i <= n; i++ {
		try(engine.PileUp(i))
	}
	for i := 1; i <= n; i++ {
		for j := 1; j <= n; j++ {
			try(engine.PileToPile(i, j, 0))
			if ok, k := p.legal(r, engine.PileToPile(i, j, 0)); ok && refAnyToEmpty(p.v) && len(p.up[j-1]) == 0 {
				for c := 1; c < k; c++ {
					try(engine.PileToPile(i, j, c))
				}
			}
		}
	}
	for s := range engine.Suit(engine.NumSuits) {
		for i := 1; i <= n; i++ {
			try(engine.FoundationDown(s, i))
		}
	}
	return ms
}

func (p *refPos) turn(i int) bool {
	if len(p.up[i]) == 0 && len(p.down[i]) > 0 {
		d := p.down[i]
		p.up[i] = append(p.up[i], d[len(d)-1])
		p.down[i] = d[:len(d)-1]
		return true
	}
	return false
}

// apply plays a legal move (U and Y excepted) and reports whether it
// turned a card face up.
func (p *refPos) apply(r engine.Rules, m engine.Move) (revealed bool) {
	switch m.Kind {
	case engine.Draw:
		k := min(r.Draw, len(p.stock))
		p.waste = append(p.waste, p.stock[:k]...)
		p.stock = p.stock[k:]
	case engine.Recycle:
		p.stock, p.waste = p.waste, nil
		p.recycles++
	case engine.WasteToTableau:
		c := refTop(p.waste)
		p.waste = p.waste[:len(p.waste)-1]
		p.up[m.To-1] = append(p.up[m.To-1], c)
	case engine.WasteToFoundation:
		c := refTop(p.waste)
		p.waste = p.waste[:len(p.waste)-1]
		p.found[p.foundationFor(c)]++
	case engine.TableauToFoundation:
		i := int(m.From) - 1
		c := refTop(p.up[i])
		p.up[i] = p.up[i][:len(p.up[i])-1]
		p.found[p.foundationFor(c)]++
		revealed = p.turn(i)
	case engine.TableauToTableau:
		i, j := int(m.From)-1, int(m.To)-1
		_, k := p.legal(r, m)
		n := len(p.up[i])
		p.up[j] = append(p.up[j], p.up[i][n-k:]...)
		p.up[i] = p.up[i][:n-k]
		revealed = p.turn(i)
	case engine.FoundationToTableau:
		f := p.downFrom(engine.Suit(m.From), int(m.To)-1)
		c := p.foundTop(f)
		p.found[f]--
		p.up[m.To-1] = append(p.up[m.To-1], c)
	}
	return revealed
}

// bruteStuck applies the rule book's definition of stuck literally: in every
// position reachable by D and R alone, within the passes left, no move is
// legal but D, R (and U) and moving a whole pile onto an empty pile.
func (p *refPos) bruteStuck(r engine.Rules) bool {
	q := p.clone()
	seen := map[[2]int]bool{}
	for {
		key := [2]int{len(q.waste), q.recycles}
		if r.Passes == 0 {
			key[1] = 0
		}
		if seen[key] {
			return true
		}
		seen[key] = true
		for _, m := range q.legalList(r) {
			switch m.Kind {
			case engine.Draw, engine.Recycle:
				continue
			case engine.TableauToTableau:
				i, j := m.From-1, m.To-1
				if _, k := q.legal(r, m); len(q.down[i]) == 0 && k == len(q.up[i]) && len(q.up[j]) == 0 {
					continue // the whole pile to an empty pile
				}
			}
			return false
		}
		switch {
		case len(q.stock) > 0:
			q.apply(r, engine.DrawMove())
		case len(q.waste) > 0 && refCanRecycle(r, q.recycles):
			q.apply(r, engine.RecycleMove())
		default:
			return true
		}
	}
}

// refScore keeps the score from the rule book's tables: each move's raw
// points, the standard floor at 0, and undo taking back the applied delta.
type refScore struct {
	r     engine.Rules
	score int
}

func newRefScore(r engine.Rules) refScore {
	s := refScore{r: r}
	if r.Scoring == engine.ScoringVegas {
		s.score = -52 * refDecks(r.Game) // a point a card
	}
	return s
}

// add scores a move of the given kind; recyclesBefore is how many recycles
// came before it. It returns the delta applied.
func (s *refScore) add(kind engine.MoveKind, revealed bool, recyclesBefore int) int {
	raw := 0
	switch s.r.Scoring {
	case engine.ScoringStandard:
		switch kind {
		case engine.WasteToTableau:
			raw = 5
		case engine.WasteToFoundation, engine.TableauToFoundation:
			raw = 10
		case engine.FoundationToTableau:
			raw = -15
		case engine.Recycle:
			if s.r.Draw == 1 {
				raw = -100
			} else if recyclesBefore >= 3 {
				raw = -20
			}
		}
		if revealed {
			raw += 5
		}
		if s.score+raw < 0 {
			raw = -s.score
		}
	case engine.ScoringVegas:
		switch kind {
		case engine.WasteToFoundation, engine.TableauToFoundation:
			raw = 5
		case engine.FoundationToTableau:
			raw = -5
		}
	}
	s.score += raw
	return raw
}

// refEvents returns the events Apply should report for a move.
func refEvents(kind engine.MoveKind, revealed bool, after engine.Status) engine.Events {
	var ev engine.Events
	switch kind {
	case engine.Draw:
		ev = engine.Drew
	case engine.Recycle:
		ev = engine.Recycled
	case engine.WasteToTableau, engine.TableauToTableau:
		ev = engine.ToTableau
	case engine.WasteToFoundation, engine.TableauToFoundation:
		ev = engine.ToFoundation
	case engine.FoundationToTableau:
		ev = engine.FromFoundation | engine.ToTableau
	case engine.Undo:
		return engine.Undid
	}
	if revealed {
		ev |= engine.Revealed
	}
	switch after {
	case engine.Won:
		ev |= engine.GameWon
	case engine.Stuck:
		ev |= engine.GameStuck
	}
	return ev
}
