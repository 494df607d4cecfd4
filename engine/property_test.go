package engine_test

// Property tests: many random games under every variant, scoring and undo
// policy, checked at every step against an independent model of the rule
// book (refPos below): a position read from the engine's text form and
// played along with the game, legal moves, effects, events and scores
// written from RULES.md without the engine's code.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"klondike/engine"
)

// propVariants are the rule book's five common variants, as draw/passes
// (passes 0 is unlimited).
var propVariants = [...]struct{ Draw, Passes int }{{1, 0}, {3, 0}, {3, 3}, {1, 3}, {1, 1}}

var propScorings = [...]engine.Scoring{engine.ScoringStandard, engine.ScoringVegas, engine.ScoringNone}

var propUndos = [...]engine.UndoPolicy{engine.UndoOn, engine.UndoOff, engine.UndoNoReveal}

// propConfigs lists every variant × scoring × undo policy × foundation-to-
// tableau setting.
var propConfigs = func() []engine.Rules {
	var rs []engine.Rules
	for _, v := range propVariants {
		for _, s := range propScorings {
			for _, u := range propUndos {
				for _, f2t := range []bool{true, false} {
					rs = append(rs, engine.Rules{Draw: v.Draw, Passes: v.Passes, FoundationToTableau: f2t, Undo: u, Scoring: s})
				}
			}
		}
	}
	return rs
}()

// propCandidates is every well-formed move: D R U W-F W-Tn Tn-F Tn-Tm
// (n = m included) Tn:k-Tm (k = 1..13) Fs-Tn.
var propCandidates = func() []engine.Move {
	ms := []engine.Move{engine.DrawMove(), engine.RecycleMove(), engine.UndoMove(), engine.WasteUp()}
	for n := 1; n <= engine.NumPiles; n++ {
		ms = append(ms, engine.WasteToPile(n), engine.PileUp(n))
	}
	for n := 1; n <= engine.NumPiles; n++ {
		for m := 1; m <= engine.NumPiles; m++ {
			for k := 0; k <= engine.NumRanks; k++ {
				ms = append(ms, engine.PileToPile(n, m, k))
			}
		}
	}
	for s := range engine.Suit(engine.NumSuits) {
		for n := 1; n <= engine.NumPiles; n++ {
			ms = append(ms, engine.FoundationDown(s, n))
		}
	}
	return ms
}()

// ---------------------------------------------------------------------------
// The reference model.

// refPos is a position as the rule book describes it, parsed from the text
// form independently of the engine's parser.
type refPos struct {
	down, up     [engine.NumPiles][]engine.Card
	waste, stock []engine.Card // waste bottom first; stock in draw order
	found        [engine.NumSuits]int
	recycles     int
	score        int
}

const refRanks = "A23456789TJQK"

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

// parseRefPos reads the engine's text form (see text.go).
func parseRefPos(text string) (*refPos, error) {
	f := strings.Split(text, " ")
	if len(f) != 5 {
		return nil, fmt.Errorf("%d fields", len(f))
	}
	var p refPos
	piles := strings.Split(f[0], "/")
	if len(piles) != engine.NumPiles {
		return nil, fmt.Errorf("%d piles", len(piles))
	}
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
	if len(f[2]) != engine.NumSuits {
		return nil, fmt.Errorf("foundations %q", f[2])
	}
	for i := range engine.NumSuits {
		if f[2][i] != '-' {
			p.found[i] = strings.IndexByte(refRanks, f[2][i]) + 1
			if p.found[i] == 0 {
				return nil, fmt.Errorf("foundations %q", f[2])
			}
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
	for i := range q.down {
		q.down[i] = slices.Clone(p.down[i])
		q.up[i] = slices.Clone(p.up[i])
	}
	q.waste = slices.Clone(p.waste)
	q.stock = slices.Clone(p.stock)
	return &q
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
	for _, n := range p.found {
		if n == 0 {
			b.WriteByte('-')
		} else {
			b.WriteByte(refRanks[n-1])
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
		if len(p.down[i]) > i {
			return fmt.Errorf("pile %d has %d face-down cards, it was dealt %d", i+1, len(p.down[i]), i)
		}
		if len(p.down[i]) > 0 && len(p.up[i]) == 0 {
			return fmt.Errorf("pile %d has a face-down card on top", i+1)
		}
		for j := 1; j < len(p.up[i]); j++ {
			if !refGoesOn(p.up[i][j], p.up[i][j-1]) {
				return fmt.Errorf("pile %d: face-up %v on %v is out of sequence", i+1, p.up[i][j], p.up[i][j-1])
			}
		}
	}
	add(p.waste)
	add(p.stock)
	if n := len(p.waste) + len(p.stock); n > engine.StockSize {
		return fmt.Errorf("talon has %d cards", n)
	}
	for s, n := range p.found {
		for r := 1; r <= n; r++ {
			count[engine.NewCard(r, engine.Suit(s)).Index()]++
		}
	}
	for i, n := range count {
		if n != 1 {
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

// refGoesOn is the building rule, written from the rule book.
func refGoesOn(c, t engine.Card) bool {
	return c.Rank()+1 == t.Rank() && c.Red() != t.Red()
}

func (p *refPos) fitsPile(c engine.Card, i int) bool {
	if len(p.up[i]) == 0 {
		return len(p.down[i]) == 0 && c.Rank() == engine.NumRanks
	}
	return refGoesOn(c, refTop(p.up[i]))
}

func (p *refPos) fitsFoundation(c engine.Card) bool {
	return c != engine.NoCard && p.found[c.Suit()]+1 == c.Rank()
}

// runFit returns how many lengths k make the top k face-up cards of pile i
// a sequence whose bottom card fits pile j (the rule book says at most one
// does), and the last such k.
func (p *refPos) runFit(i, j int) (fits, k int) {
	up := p.up[i]
	for n := 1; n <= len(up); n++ {
		if n > 1 && !refGoesOn(up[len(up)-n+1], up[len(up)-n]) {
			break
		}
		if p.fitsPile(up[len(up)-n], j) {
			fits, k = fits+1, n
		}
	}
	return fits, k
}

func refCanRecycle(r engine.Rules, recycles int) bool {
	return r.Passes == 0 || recycles < r.Passes-1
}

// legal reports whether the rule book allows m (U excepted) and, for a
// tableau move, how many cards it moves.
func (p *refPos) legal(r engine.Rules, m engine.Move) (bool, int) {
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
		if m.From == m.To {
			return false, 0
		}
		fits, k := p.runFit(int(m.From)-1, int(m.To)-1)
		if fits != 1 || (m.Count != 0 && int(m.Count) != k) {
			return false, 0
		}
		return true, k
	case engine.FoundationToTableau:
		n := p.found[m.From]
		return r.FoundationToTableau && n > 0 && p.fitsPile(engine.NewCard(n, engine.Suit(m.From)), int(m.To)-1), 0
	}
	return false, 0
}

// legalList lists the legal moves but U in the engine's documented order:
// D, R, W-F, W-Tn, Tn-F, Tn-Tm, Fs-Tn.
func (p *refPos) legalList(r engine.Rules) []engine.Move {
	var ms []engine.Move
	try := func(m engine.Move) {
		if ok, _ := p.legal(r, m); ok {
			ms = append(ms, m)
		}
	}
	try(engine.DrawMove())
	try(engine.RecycleMove())
	try(engine.WasteUp())
	for n := 1; n <= engine.NumPiles; n++ {
		try(engine.WasteToPile(n))
	}
	for n := 1; n <= engine.NumPiles; n++ {
		try(engine.PileUp(n))
	}
	for n := 1; n <= engine.NumPiles; n++ {
		for m := 1; m <= engine.NumPiles; m++ {
			try(engine.PileToPile(n, m, 0))
		}
	}
	for s := range engine.Suit(engine.NumSuits) {
		for n := 1; n <= engine.NumPiles; n++ {
			try(engine.FoundationDown(s, n))
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

// apply plays a legal move (U excepted) and reports whether it turned a
// card face up.
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
		p.found[c.Suit()]++
	case engine.TableauToFoundation:
		i := int(m.From) - 1
		c := refTop(p.up[i])
		p.up[i] = p.up[i][:len(p.up[i])-1]
		p.found[c.Suit()]++
		revealed = p.turn(i)
	case engine.TableauToTableau:
		i, j := int(m.From)-1, int(m.To)-1
		_, k := p.runFit(i, j)
		n := len(p.up[i])
		p.up[j] = append(p.up[j], p.up[i][n-k:]...)
		p.up[i] = p.up[i][:n-k]
		revealed = p.turn(i)
	case engine.FoundationToTableau:
		c := engine.NewCard(p.found[m.From], engine.Suit(m.From))
		p.found[m.From]--
		p.up[m.To-1] = append(p.up[m.To-1], c)
	}
	return revealed
}

// bruteStuck applies the rule book's definition of stuck literally: in every
// position reachable by D and R alone, within the passes left, no move is
// legal but D, R (and U) and moving a whole king-headed pile onto an empty
// pile.
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
				if len(q.down[i]) == 0 && q.up[i][0].Rank() == engine.NumRanks && len(q.up[j]) == 0 {
					if _, k := q.legal(r, m); k == len(q.up[i]) {
						continue // the whole pile, headed by a king, to an empty pile
					}
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
		s.score = -52
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

// ---------------------------------------------------------------------------
// The random games.

// propUndoEntry is what the test remembers of each applied move.
type propUndoEntry struct {
	text   string
	score  int
	ref    *refPos
	turned bool // the move turned a card face up: a reveal, or a draw
	delta  int
}

type propGame struct {
	t      *testing.T
	name   string
	rng    *rand.Rand
	r      engine.Rules
	g      *engine.Game
	ref    *refPos // the model of the current position
	score  refScore
	stack  []propUndoEntry
	played []string
	moves  int
	buf    []byte
	legal  []engine.Move // the engine's legal moves at this step
	refLeg []engine.Move // the model's, U excepted
	stats  *propStats
}

type propStats struct {
	Games, Steps, Heavy, Enumerated, Won, Stuck, Undos, F2T, Refused int
}

func (pg *propGame) fatalf(format string, args ...any) {
	pg.t.Helper()
	pg.t.Fatalf("%s after %d moves [%s]\nposition %s\n%s", pg.name, len(pg.played), strings.Join(pg.played, " "), pg.g, fmt.Sprintf(format, args...))
}

// expectCanUndo is when U must be accepted, from the test's own history.
// Under no_reveal a move that turned cards face up cannot be undone: a
// tableau reveal, and a draw, which turns stock cards up (rules.go).
func (pg *propGame) expectCanUndo() bool {
	if pg.g.Status() != engine.Playing || pg.r.Undo == engine.UndoOff || len(pg.stack) == 0 {
		return false
	}
	return pg.r.Undo != engine.UndoNoReveal || !pg.stack[len(pg.stack)-1].turned
}

func propMovesString(ms []engine.Move) string {
	s := make([]string, len(ms))
	for i, m := range ms {
		s[i] = m.String()
	}
	return strings.Join(s, " ")
}

// propTokens maps each canonical card token to its card.
var propTokens = func() map[string]engine.Card {
	m := make(map[string]engine.Card, engine.NumCards)
	for i := range engine.NumCards {
		m[engine.CardAt(i).String()] = engine.CardAt(i)
	}
	return m
}()

// propHiddenInJSON returns a card token quoted in js that is in hidden, if any.
func propHiddenInJSON(js []byte, hidden *[engine.NumCards]bool) (engine.Card, bool) {
	for i := 0; i+3 < len(js); i++ {
		if js[i] == '"' && js[i+3] == '"' {
			if c, ok := propTokens[string(js[i+1:i+3])]; ok && hidden[c.Index()] {
				return c, true
			}
		}
	}
	return engine.NoCard, false
}

// check runs the checks of one step. The cheap ones run at every step; the
// heavy ones (the engine's text parser, encoding/json, the view's move
// generator, stuck by brute force) when heavy is set, and enumerate tries
// every well-formed move.
func (pg *propGame) check(heavy, enumerate bool) {
	pg.t.Helper()
	g, r, ref := pg.g, pg.r, pg.ref
	if got := textLayout(g.String()); got != ref.layout() {
		pg.fatalf("position\n%s\nrule book\n%s", got, ref.layout())
	}
	if err := ref.check(); err != nil {
		pg.fatalf("invariant: %v", err)
	}
	if g.Moves() != pg.moves {
		pg.fatalf("Moves() = %d, want %d", g.Moves(), pg.moves)
	}

	// Accessors agree with the model.
	if ref.recycles != g.Recycles() || len(ref.stock) != g.StockSize() ||
		len(ref.waste) != g.WasteSize() || refTop(ref.waste) != g.WasteTop() {
		pg.fatalf("accessors disagree with the text form")
	}
	total := 0
	for s := range engine.Suit(engine.NumSuits) {
		if g.Foundation(s) != ref.found[s] {
			pg.fatalf("Foundation(%v) = %d, text says %d", s, g.Foundation(s), ref.found[s])
		}
		total += ref.found[s]
	}
	if g.FoundationTotal() != total {
		pg.fatalf("FoundationTotal() = %d, want %d", g.FoundationTotal(), total)
	}

	// Scores.
	switch r.Scoring {
	case engine.ScoringStandard:
		if g.Score() < 0 {
			pg.fatalf("standard score %d below 0", g.Score())
		}
	case engine.ScoringVegas:
		if g.Score() != -52+5*total {
			pg.fatalf("vegas score %d, want -52 + 5·%d", g.Score(), total)
		}
	case engine.ScoringNone:
		if g.Score() != 0 {
			pg.fatalf("scoring none has score %d", g.Score())
		}
	}
	if g.Score() != pg.score.score {
		pg.fatalf("Score() = %d, the rule book's tables give %d", g.Score(), pg.score.score)
	}

	// Status.
	st := g.Status()
	if (total == engine.NumCards) != (st == engine.Won) {
		pg.fatalf("status %v with %d cards up", st, total)
	}
	if (st == engine.Playing || st == engine.Stuck) && g.IsStuck() != (st == engine.Stuck) {
		pg.fatalf("status %v but IsStuck() = %v", st, g.IsStuck())
	}

	// The view hides every face-down card and the whole stock.
	ms := pg.rng.Int64N(1 << 40)
	pg.buf = g.AppendViewJSON(pg.buf[:0], ms)
	var hidden [engine.NumCards]bool
	for _, c := range ref.stock {
		hidden[c.Index()] = true
	}
	for i := range ref.down {
		for _, c := range ref.down[i] {
			hidden[c.Index()] = true
		}
	}
	if c, ok := propHiddenInJSON(pg.buf, &hidden); ok {
		pg.fatalf("the view shows hidden card %v:\n%s", c, pg.buf)
	}

	// Legal moves: the engine's list is the rule book's, in order.
	pg.legal = g.LegalMoves(pg.legal[:0])
	pg.refLeg = nil
	if st == engine.Playing {
		pg.refLeg = ref.legalList(r)
	}
	want := pg.refLeg
	if st == engine.Playing {
		if pg.expectCanUndo() {
			want = slices.Clip(want)
			want = append(want, engine.UndoMove())
		}
	}
	if !slices.Equal(pg.legal, want) {
		pg.fatalf("LegalMoves = [%s]\nrule book  [%s]", propMovesString(pg.legal), propMovesString(want))
	}
	if g.CanUndo() != pg.expectCanUndo() {
		pg.fatalf("CanUndo() = %v, want %v", g.CanUndo(), pg.expectCanUndo())
	}
	if m, ok := g.SafeMove(); ok {
		if !slices.Contains(pg.legal, m) || (m.Kind != engine.TableauToFoundation && m.Kind != engine.WasteToFoundation) {
			pg.fatalf("SafeMove() = %v, not a legal move to a foundation", m)
		}
	}

	if heavy {
		pg.heavy(ms)
	}
	if enumerate {
		pg.enumerate()
	}
}

func (pg *propGame) heavy(ms int64) {
	pg.t.Helper()
	pg.stats.Heavy++
	g, r, ref := pg.g, pg.r, pg.ref
	text := g.String()

	// The test's own parser reads the same position.
	if p, err := parseRefPos(text); err != nil {
		pg.fatalf("text form %q: %v", text, err)
	} else if p.layout() != ref.layout() || p.score != g.Score() {
		pg.fatalf("text form %q reads as %s %d", text, p.layout(), p.score)
	}
	for i := range engine.NumPiles {
		down, up := g.Pile(i + 1)
		if down != len(ref.down[i]) || !slices.Equal(up, ref.up[i]) {
			pg.fatalf("Pile(%d) = %d, %v", i+1, down, up)
		}
	}

	// The engine's parser round-trips the text form.
	g2, err := engine.ParseGame(text, r)
	if err != nil {
		pg.fatalf("ParseGame(String()): %v", err)
	}
	if g2.String() != text {
		pg.fatalf("ParseGame round trip:\n%s\nwant\n%s", g2, text)
	}
	st := g.Status()
	if st == engine.Playing || st == engine.Won || st == engine.Stuck {
		if g2.Status() != st {
			pg.fatalf("parsed status %v, game status %v", g2.Status(), st)
		}
	}

	// Stuck, by brute force.
	if st == engine.Playing || st == engine.Stuck {
		if brute := ref.bruteStuck(r); g.IsStuck() != brute {
			pg.fatalf("IsStuck() = %v, brute force says %v", g.IsStuck(), brute)
		}
	}

	// The view's JSON is encoding/json's and survives a round trip.
	v := g.View(ms)
	mj, err := json.Marshal(v)
	if err != nil {
		pg.fatalf("json.Marshal(View): %v", err)
	}
	if !bytes.Equal(pg.buf, mj) {
		pg.fatalf("AppendViewJSON\n%s\njson.Marshal\n%s", pg.buf, mj)
	}
	var dv engine.View
	if err := json.Unmarshal(pg.buf, &dv); err != nil {
		pg.fatalf("json.Unmarshal(view): %v\n%s", err, pg.buf)
	}
	if again, err := json.Marshal(dv); err != nil || !bytes.Equal(again, pg.buf) {
		pg.fatalf("view JSON does not survive a decode: %v\n%s\n%s", err, again, pg.buf)
	}
	if want := ref.waste[len(ref.waste)-min(len(ref.waste), r.Draw):]; !slices.Equal(dv.Waste, want) {
		pg.fatalf("view waste %v, want the top %v", dv.Waste, want)
	}
	for i := range dv.Tableau {
		if dv.Tableau[i].Down != len(ref.down[i]) || !slices.Equal(dv.Tableau[i].Up, ref.up[i]) {
			pg.fatalf("view pile %d = %+v", i+1, dv.Tableau[i])
		}
	}
	if dv.Stock != len(ref.stock) || dv.WasteSize != len(ref.waste) || dv.Score != g.Score() ||
		dv.Moves != g.Moves() || dv.PassesUsed != ref.recycles || dv.Status != st || dv.ElapsedMs != ms {
		pg.fatalf("view fields: %s", pg.buf)
	}
	if r.Passes == 0 {
		if dv.PassesLeft != nil {
			pg.fatalf("passes_left %d with unlimited passes", *dv.PassesLeft)
		}
	} else if dv.PassesLeft == nil || *dv.PassesLeft != max(0, r.Passes-1-ref.recycles) {
		pg.fatalf("passes_left wrong: %s", pg.buf)
	}

	// The view's move generator, on the decoded JSON, agrees with the game's.
	noU := slices.DeleteFunc(slices.Clone(pg.legal), func(m engine.Move) bool { return m.Kind == engine.Undo })
	if vl := dv.LegalMoves(r, nil); !slices.Equal(vl, noU) {
		pg.fatalf("View.LegalMoves = [%s]\nGame.LegalMoves  [%s]", propMovesString(vl), propMovesString(noU))
	}
}

// enumerate tries every well-formed move: the legal ones on a clone, the
// others on the game itself, which must not change.
func (pg *propGame) enumerate() {
	pg.t.Helper()
	g, r, ref, legal := pg.g, pg.r, pg.ref, pg.legal
	pg.stats.Enumerated++
	text, score, moves := g.String(), g.Score(), g.Moves()
	var scratch []byte
	for _, m := range propCandidates {
		listed := slices.Contains(legal, m)
		ok, k := ref.legal(r, m)
		if m.Kind == engine.Undo {
			ok = pg.expectCanUndo()
		}
		if g.Status() != engine.Playing {
			ok = false
		}
		plainListed := false
		if m.Kind == engine.TableauToTableau && m.Count > 0 {
			// Tn:k-Tm: legal iff Tn-Tm is listed and k is the fitting length.
			plain := engine.PileToPile(int(m.From), int(m.To), 0)
			_, fit := ref.legal(r, plain)
			plainListed = slices.Contains(legal, plain)
			if want := plainListed && int(m.Count) == fit; want != ok {
				pg.fatalf("%v: rule book says %v, Tn-Tm listed and fitting %v", m, ok, want)
			}
		} else if listed != ok {
			pg.fatalf("%v: listed %v, rule book says legal %v", m, listed, ok)
		}
		if !ok {
			_, err := g.Apply(m)
			if err == nil || !errors.Is(err, engine.ErrIllegal) {
				pg.fatalf("Apply(%v) = %v, want a refusal matching ErrIllegal", m, err)
			}
			if plainListed && k == 0 && !errors.Is(err, engine.ErrRunCount) {
				pg.fatalf("Apply(%v) = %v, want ErrRunCount", m, err)
			}
			if g.Score() != score || g.Moves() != moves {
				pg.fatalf("refused %v changed the score to %d or the moves to %d", m, g.Score(), g.Moves())
			}
			// The position too: after each refusal, or for Tn:k-Tm after
			// the last k of each pair of piles (a change would stay).
			if m.Kind != engine.TableauToTableau || m.Count == engine.NumRanks {
				scratch = g.AppendText(scratch[:0])
				if string(scratch) != text {
					pg.fatalf("refused %v changed the game to %s", m, scratch)
				}
			}
			continue
		}
		c := g.Clone()
		ev, err := c.Apply(m)
		if err != nil {
			pg.fatalf("Apply(%v) on a clone = %v; it is legal", m, err)
		}
		if m.Kind == engine.Undo {
			top := pg.stack[len(pg.stack)-1]
			if c.String() != top.text || c.Score() != top.score || ev != engine.Undid {
				pg.fatalf("U on a clone gave %s score %d (%v), want %s score %d", c, c.Score(), ev, top.text, top.score)
			}
			continue
		}
		q := ref.clone()
		rev := q.apply(r, m)
		if got := textLayout(c.String()); got != q.layout() {
			pg.fatalf("after %v:\n%s\nrule book\n%s", m, got, q.layout())
		}
		if want := refEvents(m.Kind, rev, c.Status()); ev != want {
			pg.fatalf("%v events %v, want %v", m, ev, want)
		}
		if c.CanUndo() {
			if _, err := c.Apply(engine.UndoMove()); err != nil {
				pg.fatalf("U after %v on a clone: %v", m, err)
			}
			if c.String() != text || c.Score() != score || c.Moves() != moves+2 {
				pg.fatalf("%v then U gave %s score %d moves %d", m, c, c.Score(), c.Moves())
			}
		}
	}
	if g.String() != text {
		pg.fatalf("the game changed during enumeration")
	}
}

// apply plays m, which the test expects Apply to accept, and checks it
// against the model.
func (pg *propGame) apply(m engine.Move) {
	pg.t.Helper()
	g, r := pg.g, pg.r
	text, score := g.String(), g.Score()
	ev, err := g.Apply(m)
	if err != nil {
		pg.fatalf("Apply(%v) = %v; it is legal", m, err)
	}
	pg.moves++
	pg.played = append(pg.played, m.String())
	if m.Kind == engine.Undo {
		pg.stats.Undos++
		top := pg.stack[len(pg.stack)-1]
		pg.stack = pg.stack[:len(pg.stack)-1]
		pg.score.score -= top.delta
		pg.ref = top.ref
		if g.String() != top.text || g.Score() != top.score {
			pg.fatalf("U gave %s score %d, want %s score %d", g, g.Score(), top.text, top.score)
		}
		if ev != engine.Undid {
			pg.fatalf("U events %v", ev)
		}
		return
	}
	if m.Kind == engine.FoundationToTableau {
		pg.stats.F2T++
	}
	q := pg.ref.clone()
	rev := q.apply(r, m)
	if want := refEvents(m.Kind, rev, g.Status()); ev != want {
		pg.fatalf("%v events %v, want %v", m, ev, want)
	}
	delta := pg.score.add(m.Kind, ev.Has(engine.Revealed), pg.ref.recycles)
	pg.stack = append(pg.stack, propUndoEntry{text: text, score: score, ref: pg.ref, turned: rev || m.Kind == engine.Draw, delta: delta})
	pg.ref = q
}

// pick chooses a legal move but U, favouring progress a little.
func (pg *propGame) pick(legal []engine.Move) (engine.Move, bool) {
	total := 0
	weight := func(m engine.Move) int {
		switch m.Kind {
		case engine.WasteToFoundation, engine.TableauToFoundation:
			return 8
		case engine.WasteToTableau, engine.TableauToTableau:
			return 4
		case engine.Draw:
			return 3
		case engine.Recycle, engine.FoundationToTableau:
			return 1
		}
		return 0
	}
	for _, m := range legal {
		total += weight(m)
	}
	if total == 0 {
		return engine.Move{}, false
	}
	x := pg.rng.IntN(total)
	for _, m := range legal {
		if x -= weight(m); x < 0 {
			return m, true
		}
	}
	panic("unreachable")
}

func (pg *propGame) refuse(m engine.Move) {
	pg.t.Helper()
	text, score, moves := pg.g.String(), pg.g.Score(), pg.g.Moves()
	_, err := pg.g.Apply(m)
	if err == nil || !errors.Is(err, engine.ErrIllegal) {
		pg.fatalf("Apply(%#v) = %v, want a refusal matching ErrIllegal", m, err)
	}
	if pg.g.String() != text || pg.g.Score() != score || pg.g.Moves() != moves {
		pg.fatalf("refused %#v changed the game", m)
	}
	pg.stats.Refused++
}

// play runs one random game of up to maxMoves moves. The heavy checks run on
// one step in heavyEvery and at the end, the enumeration of every
// well-formed move on one step in enumEvery and at the end.
func (pg *propGame) play(maxMoves, heavyEvery, enumEvery int) {
	pg.t.Helper()
	pg.stats.Games++
	undoChain := 0
	for step := 0; ; step++ {
		pg.stats.Steps++
		g := pg.g
		over := g.Status() != engine.Playing
		pg.check(over || step >= maxMoves || pg.rng.IntN(heavyEvery) == 0, over || pg.rng.IntN(enumEvery) == 0)
		if g.Status() != engine.Playing {
			switch g.Status() {
			case engine.Won:
				pg.stats.Won++
			case engine.Stuck:
				pg.stats.Stuck++
			}
			pg.refuse(engine.DrawMove())
			pg.refuse(engine.UndoMove())
			if err := g.Resign(); !errors.Is(err, engine.ErrGameOver) {
				pg.fatalf("Resign() after the end = %v", err)
			}
			return
		}
		if step >= maxMoves {
			if g.TimeOut() != true || g.Status() != engine.TimedOut || g.TimeOut() {
				pg.fatalf("TimeOut did not end the game once")
			}
			pg.check(true, false)
			pg.refuse(engine.DrawMove())
			return
		}
		if undoChain > 0 && pg.expectCanUndo() {
			undoChain--
			pg.apply(engine.UndoMove())
			continue
		}
		undoChain = 0
		x := pg.rng.IntN(100)
		switch {
		case x < 12 && pg.expectCanUndo():
			if pg.rng.IntN(4) == 0 {
				undoChain = 1 + pg.rng.IntN(6)
			}
			pg.apply(engine.UndoMove())
		case x < 20:
			// A random well-formed move, most often illegal.
			m := propCandidates[pg.rng.IntN(len(propCandidates))]
			ok, _ := pg.ref.legal(pg.r, m)
			if m.Kind == engine.Undo {
				ok = pg.expectCanUndo()
			}
			if ok {
				pg.apply(m)
			} else {
				pg.refuse(m)
			}
		case x < 25:
			// A checkpoint, one legal move (U included), a rollback: the
			// game is back exactly, and its history works on (the checks
			// and later undos use it).
			text, score, moves := g.String(), g.Score(), g.Moves()
			cp := g.Checkpoint()
			m := pg.legal[pg.rng.IntN(len(pg.legal))]
			if _, err := g.Apply(m); err != nil {
				pg.fatalf("Apply(%v): %v", m, err)
			}
			g.Rollback(cp)
			if g.String() != text || g.Score() != score || g.Moves() != moves || g.Status() != engine.Playing {
				pg.fatalf("%v then Rollback gave %s score %d moves %d %v", m, g, g.Score(), g.Moves(), g.Status())
			}
		case x < 27:
			// A move that is not well formed.
			bad := [...]engine.Move{{}, {Kind: 99}, {Kind: engine.WasteToTableau, To: 8}, {Kind: engine.Draw, To: 1},
				{Kind: engine.TableauToTableau, From: 1, To: 2, Count: 14}, {Kind: engine.FoundationToTableau, From: 4, To: 1},
				{Kind: engine.TableauToFoundation, From: 0}, {Kind: engine.WasteToFoundation, Count: 1}}
			pg.refuse(bad[pg.rng.IntN(len(bad))])
		default:
			m, ok := pg.pick(pg.legal) // the engine's list (checked against the rule book's)
			if !ok {
				pg.fatalf("a game in play has no move but U")
			}
			pg.apply(m)
		}
	}
}

// propDeal returns a deal: a numbered one (either generator) or a random
// layout from the test's generator.
func propDeal(rng *rand.Rand) engine.Deal {
	switch rng.IntN(3) {
	case 0:
		return engine.NumberedDeal(rng.Uint64N(32000))
	case 1:
		return engine.NumberedDeal(rng.Uint64())
	}
	perm := rng.Perm(engine.NumCards)
	var d engine.Deal
	k := 0
	for i := range d.Tableau {
		for range i + 1 {
			d.Tableau[i] = append(d.Tableau[i], engine.CardAt(perm[k]))
			k++
		}
	}
	for ; k < engine.NumCards; k++ {
		d.Stock = append(d.Stock, engine.CardAt(perm[k]))
	}
	return d
}

// TestPropertyRandomGames plays random games (seeded PCG, so the same games
// every run) over every rule combination in turn: mostly legal moves from
// Game.LegalMoves, biased a little towards progress, and often U (sometimes
// several in a row), random well-formed moves (mostly illegal), malformed
// moves and checkpoint/rollback pairs. At every step it checks the position
// against the model, the 52 cards, the accessors, the scores, the status,
// that the view JSON shows no hidden card, and the legal moves and CanUndo
// against the rule book. The heavier checks (ParseGame and the test's parser
// round trip, encoding/json against AppendViewJSON, View.LegalMoves on the
// decoded JSON, stuck by brute force) run on one step in heavyEvery and on
// the last; trying every well-formed move, on one step in enumEvery and on
// a game's end. The counts keep the test near 1 s, 10 s under -race.
func TestPropertyRandomGames(t *testing.T) {
	deals, maxMoves, heavyEvery, enumEvery := 300, 120, 8, 128
	if testing.Short() {
		deals, maxMoves = 90, 80
	}
	stats := &propStats{}
	for i := range deals {
		r := propConfigs[i%len(propConfigs)]
		rng := rand.New(rand.NewPCG(0x6b6c6f6e64696b65, uint64(i)))
		d := propDeal(rng)
		g, err := engine.NewGame(d, r)
		if err != nil {
			t.Fatalf("NewGame: %v", err)
		}
		ref, err := parseRefPos(g.String())
		if err != nil {
			t.Fatalf("the opening position %q: %v", g, err)
		}
		pg := &propGame{
			t: t, name: fmt.Sprintf("game %d (%v)", i, r), rng: rng, r: r, g: g, ref: ref,
			score: newRefScore(r), stats: stats,
		}
		pg.play(maxMoves, heavyEvery, enumEvery)
	}
	t.Logf("%+v", *stats)
	if !testing.Short() && (stats.Stuck == 0 || stats.Undos == 0 || stats.F2T == 0) {
		t.Errorf("the random games did not cover stuck games, undo and F-T: %+v", *stats)
	}
}

// TestPropertyNearlyStuck checks IsStuck against brute force on
// positions built to be nearly stuck: random games that send cards up
// eagerly under one pass end stuck often, and every step is compared.
func TestPropertyNearlyStuck(t *testing.T) {
	n := 30
	if testing.Short() {
		n = 12
	}
	stuck := 0
	for i := range n {
		rng := rand.New(rand.NewPCG(7, uint64(i)))
		r := engine.Rules{Draw: []int{1, 3}[i%2], Passes: []int{1, 3}[i/2%2], FoundationToTableau: i%3 != 0, Undo: engine.UndoOff, Scoring: engine.ScoringNone}
		g, err := engine.NewGame(propDeal(rng), r)
		if err != nil {
			t.Fatal(err)
		}
		for step := 0; g.Status() == engine.Playing && step < 300; step++ {
			ref, err := parseRefPos(g.String())
			if err != nil {
				t.Fatal(err)
			}
			if brute := ref.bruteStuck(r); brute != g.IsStuck() {
				t.Fatalf("game %d step %d: IsStuck() = %v, brute force %v in %v", i, step, g.IsStuck(), brute, g)
			}
			legal := ref.legalList(r)
			// Prefer anything but D/R so the talon runs out.
			var m engine.Move
			for _, c := range legal {
				if c.Kind != engine.Draw && c.Kind != engine.Recycle && c.Kind != engine.FoundationToTableau {
					m = c
					if rng.IntN(2) == 0 {
						break
					}
				}
			}
			if m.Kind == engine.NoMove {
				m = legal[rng.IntN(len(legal))]
			}
			if _, err := g.Apply(m); err != nil {
				t.Fatalf("game %d: Apply(%v): %v", i, m, err)
			}
		}
		if g.Status() == engine.Stuck {
			stuck++
			ref, _ := parseRefPos(g.String())
			if !ref.bruteStuck(r) {
				t.Fatalf("game %d reports stuck; brute force finds a move in %v", i, g)
			}
		}
	}
	t.Logf("%d of %d games ended stuck", stuck, n)
}

// TestParseGameOverfullPile is a regression test. ParseGame used to accept
// a pile of 19 cards (18 face down) whose top is a two; LegalMoves then
// listed W-T1 for the ace on the waste, and Apply panicked writing a 20th
// card into the pile's 19-card array. Whatever ParseGame accepts, its legal
// moves must apply (FuzzParseGame checks the same on any input).
func TestParseGameOverfullPile(t *testing.T) {
	used := map[string]bool{"2S": true, "AH": true}
	for r := 1; r <= 9; r++ {
		used[engine.NewCard(r, engine.Clubs).String()] = true
	}
	var down, stock strings.Builder
	n := 0
	for i := range engine.NumCards {
		tok := engine.CardAt(i).String()
		if used[tok] {
			continue
		}
		if n < 18 {
			down.WriteString(tok)
		} else {
			stock.WriteString(tok)
		}
		n++
	}
	text := down.String() + "|2S/|/|/|/|/|/| AH|" + stock.String() + " 9--- 0 0"
	g, err := engine.ParseGame(text, engine.DefaultRules())
	if err != nil {
		if !errors.Is(err, engine.ErrBadPosition) {
			t.Fatalf("ParseGame: %v, want ErrBadPosition", err)
		}
		return
	}
	for _, m := range g.LegalMoves(nil) {
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("ParseGame accepted %q; LegalMoves lists %v; Apply(%v) panics: %v", text, m, m, p)
				}
			}()
			c := g.Clone()
			if _, err := c.Apply(m); err != nil {
				t.Errorf("Apply(%v) = %v; LegalMoves lists it", m, err)
			}
		}()
	}
}

// TestApplyMalformedUndo shows an engine bug: Apply (game.go) handles
// m.Kind == Undo before it checks that m is well formed, so a malformed
// undo such as Move{Kind: Undo, To: 3} (which Move.String writes as "?")
// is accepted and takes a move back. Every other malformed move is refused
// with ErrMalformedMove, and so should this one be, changing nothing.
func TestApplyMalformedUndo(t *testing.T) {
	for _, m := range []engine.Move{{Kind: engine.Undo, To: 3}, {Kind: engine.Undo, From: 1}, {Kind: engine.Undo, Count: 2}} {
		g, err := engine.NewGame(engine.NumberedDeal(1), engine.DefaultRules())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := g.Apply(engine.DrawMove()); err != nil {
			t.Fatal(err)
		}
		before, moves := g.String(), g.Moves()
		if _, err := g.Apply(m); !errors.Is(err, engine.ErrMalformedMove) || g.String() != before || g.Moves() != moves {
			t.Errorf("Apply(%#v) (written %q) = %v and left %s, moves %d; want ErrMalformedMove and no change", m, m.String(), err, g, g.Moves())
		}
	}
}
