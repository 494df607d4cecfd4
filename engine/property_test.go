package engine_test

// Property tests: many random games of every game (Klondike and its
// variations) under every draw and passes, scoring and undo policy, checked
// at every step against an independent model of the rule book (refPos, in
// refmodel_test.go): a position read from the engine's text form and played
// along with the game, legal moves, effects, events and scores written from
// docs/rules.md without the engine's code.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"klondike/engine"
)

// propVariants are the rule book's five common variants, as draw/passes
// (passes 0 is unlimited).
var propVariants = [...]struct{ Draw, Passes int }{{1, 0}, {3, 0}, {3, 3}, {1, 3}, {1, 1}}

var propScorings = [...]engine.Scoring{engine.ScoringStandard, engine.ScoringVegas, engine.ScoringNone}

var propUndos = [...]engine.UndoPolicy{engine.UndoOn, engine.UndoOff, engine.UndoNoReveal}

// propConfigs lists, for a game, every draw/passes × scoring × undo
// policy × foundation-to-tableau setting it allows (Whitehead is played in
// draw 1 with one pass only).
func propConfigs(game engine.Variant) []engine.Rules {
	var rs []engine.Rules
	for _, v := range propVariants {
		if game == engine.Whitehead && (v.Draw != 1 || v.Passes != 1) {
			continue
		}
		for _, s := range propScorings {
			for _, u := range propUndos {
				for _, f2t := range []bool{true, false} {
					rs = append(rs, engine.Rules{Draw: v.Draw, Passes: v.Passes, FoundationToTableau: f2t, Undo: u, Scoring: s, Game: game})
				}
			}
		}
	}
	return rs
}

// propCandidates is every well-formed move with piles up to 9: D R U Y W-F
// W-Tn Tn-F Tn-Tm (n = m included) Tn:k-Tm (k = 1..13) Fs-Tn. Those that
// name a pile past a game's are refused in it.
var propCandidates = func() []engine.Move {
	ms := []engine.Move{engine.DrawMove(), engine.RecycleMove(), engine.UndoMove(), engine.RedoMove(), engine.WasteUp()}
	for n := 1; n <= engine.MaxPiles; n++ {
		ms = append(ms, engine.WasteToPile(n), engine.PileUp(n))
	}
	for n := 1; n <= engine.MaxPiles; n++ {
		for m := 1; m <= engine.MaxPiles; m++ {
			for k := 0; k <= engine.NumRanks; k++ {
				ms = append(ms, engine.PileToPile(n, m, k))
			}
		}
	}
	for s := range engine.Suit(engine.NumSuits) {
		for n := 1; n <= engine.MaxPiles; n++ {
			ms = append(ms, engine.FoundationDown(s, n))
		}
	}
	return ms
}()

// ---------------------------------------------------------------------------
// The random games.

// propUndoEntry is what the test remembers of each applied move.
type propUndoEntry struct {
	move   engine.Move
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
	redo   []propUndoEntry // what U took back, the last taken back last
	played []string
	moves  int
	buf    []byte
	legal  []engine.Move // the engine's legal moves at this step
	refLeg []engine.Move // the model's, U excepted
	stats  *propStats
}

type propStats struct {
	Games, Steps, Heavy, Enumerated, Won, Stuck, Undos, Redos, F2T, Refused int
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

// expectCanRedo is when Y must be accepted: after U, until a new move, and
// never with undo off.
func (pg *propGame) expectCanRedo() bool {
	return pg.g.Status() == engine.Playing && pg.r.Undo != engine.UndoOff && len(pg.redo) > 0
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

// propCardsInJSON counts the card tokens quoted in js.
func propCardsInJSON(js []byte) (n [engine.NumCards]int) {
	for i := 0; i+3 < len(js); i++ {
		if js[i] == '"' && js[i+3] == '"' {
			if c, ok := propTokens[string(js[i+1:i+3])]; ok {
				n[c.Index()]++
			}
		}
	}
	return n
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
		len(ref.waste) != g.WasteSize() || refTop(ref.waste) != g.WasteTop() || g.FoundationBase() != ref.base {
		pg.fatalf("accessors disagree with the text form")
	}
	total := 0
	for s := range engine.Suit(engine.NumSuits) {
		second := 0
		if len(ref.found) > 4 {
			second = ref.found[4+s]
		}
		if g.Foundation(s) != ref.found[s] || g.SecondFoundation(s) != second {
			pg.fatalf("Foundation(%v) = %d, %d, text says %d, %d", s, g.Foundation(s), g.SecondFoundation(s), ref.found[s], second)
		}
		total += ref.found[s] + second
	}
	if g.FoundationTotal() != total {
		pg.fatalf("FoundationTotal() = %d, want %d", g.FoundationTotal(), total)
	}

	// Scores.
	cards := 52 * refDecks(r.Game)
	switch r.Scoring {
	case engine.ScoringStandard:
		if g.Score() < 0 {
			pg.fatalf("standard score %d below 0", g.Score())
		}
	case engine.ScoringVegas:
		// A point a card bought, 5 for every card sent up (Whitehead's
		// base card was dealt there).
		played := total
		if r.Game == engine.Whitehead {
			played--
		}
		if g.Score() != -cards+5*played {
			pg.fatalf("vegas score %d, want -%d + 5·%d", g.Score(), cards, played)
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
	if (total == cards) != (st == engine.Won) {
		pg.fatalf("status %v with %d cards up", st, total)
	}
	if (st == engine.Playing || st == engine.Stuck) && g.IsStuck() != (st == engine.Stuck) {
		pg.fatalf("status %v but IsStuck() = %v", st, g.IsStuck())
	}

	// The view shows exactly the face-up cards and the visible top of the
	// waste, so never a face-down card or the stock (in Double Klondike, no
	// more copies of a card than are face up).
	ms := pg.rng.Int64N(1 << 40)
	js, err := json.Marshal(g.View(ms))
	if err != nil {
		pg.fatalf("json.Marshal(View): %v", err)
	}
	pg.buf = js
	var visible [engine.NumCards]int
	for _, c := range ref.waste[len(ref.waste)-min(len(ref.waste), r.Draw):] {
		visible[c.Index()]++
	}
	for i := range ref.up {
		for _, c := range ref.up[i] {
			visible[c.Index()]++
		}
	}
	if shown := propCardsInJSON(pg.buf); shown != visible {
		for i := range shown {
			if shown[i] != visible[i] {
				pg.fatalf("the view shows %v %d times, %d face up:\n%s", engine.CardAt(i), shown[i], visible[i], pg.buf)
			}
		}
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
	if g.CanRedo() != pg.expectCanRedo() {
		pg.fatalf("CanRedo() = %v, want %v", g.CanRedo(), pg.expectCanRedo())
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
	if p, err := parseRefPos(text, r.Game); err != nil {
		pg.fatalf("text form %q: %v", text, err)
	} else if p.layout() != ref.layout() || p.score != g.Score() {
		pg.fatalf("text form %q reads as %s %d", text, p.layout(), p.score)
	}
	for i := range ref.up {
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

	// The view's JSON survives a round trip.
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
	if dv.Piles() != len(ref.up) {
		pg.fatalf("view has %d piles: %s", dv.Piles(), pg.buf)
	}
	for i := range ref.up {
		if p := dv.Pile(i + 1); p.Down != len(ref.down[i]) || !slices.Equal(p.Up, ref.up[i]) {
			pg.fatalf("view pile %d = %+v", i+1, p)
		}
	}
	found := []int{dv.Foundations.C, dv.Foundations.D, dv.Foundations.H, dv.Foundations.S}
	if f := dv.Foundations2; f != nil {
		found = append(found, f.C, f.D, f.H, f.S)
	}
	base := max(1, dv.FoundationBase)
	if !slices.Equal(found, ref.found) || base != ref.base || (dv.FoundationBase != 0) != (r.Game == engine.Whitehead) {
		pg.fatalf("view foundations %v base %d, want %v base %d", found, dv.FoundationBase, ref.found, ref.base)
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
		switch m.Kind {
		case engine.Undo:
			ok = pg.expectCanUndo()
		case engine.Redo:
			ok = pg.expectCanRedo()
			listed = ok // Y is never listed
		}
		if g.Status() != engine.Playing {
			ok = false
		}
		plainListed := false
		if m.Kind == engine.TableauToTableau && m.Count > 0 {
			// Tn:k-Tm: legal iff Tn-Tm is listed and k is the length it
			// moves, or it is listed itself (a shorter part of a run to an
			// empty pile that takes any card).
			plain := engine.PileToPile(int(m.From), int(m.To), 0)
			_, fit := ref.legal(r, plain)
			plainListed = slices.Contains(legal, plain)
			if want := plainListed && int(m.Count) == fit || listed; want != ok {
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
		played, redid := m, engine.Events(0)
		if m.Kind == engine.Redo {
			played, redid = pg.redo[len(pg.redo)-1].move, engine.Redid
		}
		q := ref.clone()
		rev := q.apply(r, played)
		if got := textLayout(c.String()); got != q.layout() {
			pg.fatalf("after %v:\n%s\nrule book\n%s", m, got, q.layout())
		}
		if want := refEvents(played.Kind, rev, c.Status()) | redid; ev != want {
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
		pg.redo = append(pg.redo, top)
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
	redid := engine.Events(0)
	if m.Kind == engine.Redo {
		// Y plays the move U took last back, in the position it was first
		// played in; a new move clears what could be redone.
		pg.stats.Redos++
		top := pg.redo[len(pg.redo)-1]
		pg.redo = pg.redo[:len(pg.redo)-1]
		if text != top.text || score != top.score {
			pg.fatalf("Y from %s score %d, but %v was played from %s score %d", text, score, top.move, top.text, top.score)
		}
		m, redid = top.move, engine.Redid
	} else {
		pg.redo = pg.redo[:0]
	}
	if m.Kind == engine.FoundationToTableau {
		pg.stats.F2T++
	}
	q := pg.ref.clone()
	rev := q.apply(r, m)
	if want := refEvents(m.Kind, rev, g.Status()) | redid; ev != want {
		pg.fatalf("%v events %v, want %v", m, ev, want)
	}
	delta := pg.score.add(m.Kind, ev.Has(engine.Revealed), pg.ref.recycles)
	pg.stack = append(pg.stack, propUndoEntry{move: m, text: text, score: score, ref: pg.ref, turned: rev || m.Kind == engine.Draw, delta: delta})
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
			pg.refuse(engine.RedoMove())
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
		case x < 16 && pg.expectCanRedo():
			pg.apply(engine.RedoMove())
		case x < 20:
			// A random well-formed move, most often illegal.
			m := propCandidates[pg.rng.IntN(len(propCandidates))]
			ok, _ := pg.ref.legal(pg.r, m)
			switch m.Kind {
			case engine.Undo:
				ok = pg.expectCanUndo()
			case engine.Redo:
				ok = pg.expectCanRedo()
			}
			if ok {
				pg.apply(m)
			} else {
				pg.refuse(m)
			}
		case x < 25:
			// A checkpoint, one legal move (U or Y included), a rollback:
			// the game is back exactly, and its history works on (the
			// checks and later undos and redos use it).
			text, score, moves := g.String(), g.Score(), g.Moves()
			cp := g.Checkpoint()
			m := pg.legal[pg.rng.IntN(len(pg.legal))]
			if pg.expectCanRedo() && pg.rng.IntN(3) == 0 {
				m = engine.RedoMove()
			}
			if _, err := g.Apply(m); err != nil {
				pg.fatalf("Apply(%v): %v", m, err)
			}
			g.Rollback(cp)
			if g.String() != text || g.Score() != score || g.Moves() != moves || g.Status() != engine.Playing {
				pg.fatalf("%v then Rollback gave %s score %d moves %d %v", m, g, g.Score(), g.Moves(), g.Status())
			}
		case x < 27:
			// A move that is not well formed.
			bad := [...]engine.Move{{}, {Kind: 99}, {Kind: engine.WasteToTableau, To: 10}, {Kind: engine.PileToPile(1, 1, 0).Kind, From: 2, To: 10}, {Kind: engine.Draw, To: 1},
				{Kind: engine.TableauToTableau, From: 1, To: 2, Count: 14}, {Kind: engine.FoundationToTableau, From: 4, To: 1},
				{Kind: engine.TableauToFoundation, From: 0}, {Kind: engine.WasteToFoundation, Count: 1}, {Kind: engine.Redo, From: 2}}
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

// propDeal returns a deal for game v: a numbered one (either generator) or
// a random layout from the test's generator.
func propDeal(rng *rand.Rand, v engine.Variant) engine.Deal {
	switch rng.IntN(3) {
	case 0:
		return engine.NumberedDealFor(v, rng.Uint64N(32000))
	case 1:
		return engine.NumberedDealFor(v, rng.Uint64())
	}
	perm := rng.Perm(engine.NumCards * refDecks(v))
	var d engine.Deal
	k := 0
	for i := range refPiles(v) {
		var pile []engine.Card
		for range i + 1 {
			pile = append(pile, engine.CardAt(perm[k]%engine.NumCards))
			k++
		}
		if i < engine.NumPiles {
			d.Tableau[i] = pile
		} else {
			d.MorePiles = append(d.MorePiles, pile)
		}
	}
	for ; k < len(perm); k++ {
		d.Stock = append(d.Stock, engine.CardAt(perm[k]%engine.NumCards))
	}
	return d
}

// propGames is how many random games TestPropertyRandomGames plays of each
// game.
var propGames = [engine.NumVariants]int{engine.Klondike: 300, engine.ThumbAndPouch: 200, engine.Whitehead: 150, engine.DoubleKlondike: 150}

// TestPropertyRandomGames plays random games (seeded PCG, so the same games
// every run) over every rule combination in turn: mostly legal moves from
// Game.LegalMoves, biased a little towards progress, and often U (sometimes
// several in a row), random well-formed moves (mostly illegal), malformed
// moves and checkpoint/rollback pairs. At every step it checks the position
// against the model, the 52 cards, the accessors, the scores, the status,
// that the view JSON shows no hidden card, and the legal moves and CanUndo
// against the rule book. The heavier checks (ParseGame and the test's parser
// round trip, the view's JSON round trip, View.LegalMoves on the
// decoded JSON, stuck by brute force) run on one step in heavyEvery and on
// the last; trying every well-formed move, on one step in enumEvery and on
// a game's end. The counts keep the test near 1 s, 10 s under -race.
func TestPropertyRandomGames(t *testing.T) {
	for v := range engine.Variant(engine.NumVariants) {
		t.Run(v.String(), func(t *testing.T) { propRandomGames(t, v) })
	}
}

func propRandomGames(t *testing.T, v engine.Variant) {
	deals, maxMoves, heavyEvery, enumEvery := propGames[v], 120, 8, 128
	if testing.Short() {
		deals, maxMoves = deals*3/10, 80
	}
	configs := propConfigs(v)
	stats := &propStats{}
	for i := range deals {
		r := configs[i%len(configs)]
		rng := rand.New(rand.NewPCG(0x6b6c6f6e64696b65+uint64(v), uint64(i)))
		d := propDeal(rng, v)
		g, err := engine.NewGame(d, r)
		if err != nil {
			t.Fatalf("NewGame: %v", err)
		}
		ref, err := parseRefPos(g.String(), v)
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
	if !testing.Short() && (stats.Undos == 0 || stats.Redos == 0 || stats.F2T == 0) {
		t.Errorf("the random games did not cover undo, redo and F-T: %+v", *stats)
	}
	if !testing.Short() && v != engine.DoubleKlondike && stats.Stuck == 0 {
		t.Errorf("the random games did not cover stuck games: %+v", *stats)
	}
}

// TestPropertyNearlyStuck checks IsStuck against brute force on
// positions built to be nearly stuck: random games that send cards up
// eagerly under one pass end stuck often, and every step is compared.
func TestPropertyNearlyStuck(t *testing.T) {
	for v := range engine.Variant(engine.NumVariants) {
		t.Run(v.String(), func(t *testing.T) { propNearlyStuck(t, v) })
	}
}

func propNearlyStuck(t *testing.T, v engine.Variant) {
	n := 30
	if testing.Short() {
		n = 12
	}
	stuck := 0
	for i := range n {
		rng := rand.New(rand.NewPCG(7+uint64(v), uint64(i)))
		r := engine.Rules{Draw: []int{1, 3}[i%2], Passes: []int{1, 3}[i/2%2], FoundationToTableau: i%3 != 0, Undo: engine.UndoOff, Scoring: engine.ScoringNone, Game: v}
		if v == engine.Whitehead {
			r.Draw, r.Passes = 1, 1
		}
		g, err := engine.NewGame(propDeal(rng, v), r)
		if err != nil {
			t.Fatal(err)
		}
		for step := 0; g.Status() == engine.Playing && step < 300; step++ {
			ref, err := parseRefPos(g.String(), v)
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
			ref, _ := parseRefPos(g.String(), v)
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
	for _, m := range []engine.Move{{Kind: engine.Undo, To: 3}, {Kind: engine.Undo, From: 1}, {Kind: engine.Undo, Count: 2}, {Kind: engine.Redo, To: 1}} {
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
