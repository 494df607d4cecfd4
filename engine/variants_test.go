package engine_test

// Won games of the five common variants, replayed under the three scorings,
// with the score recomputed from the rule book's tables at every step. The
// games live in testdata/games; TestFindVariantGames regenerates them under
// -update.

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"hash/maphash"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"klondike/engine"
)

const vtDir = "testdata/games"

// vtUpdate reports whether -update is set. The flag is shared with the deal
// golden file of numbered_test.go, which defines it in this test binary; it
// is registered here only when no other file did.
var vtUpdate = func() func() bool {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite the golden files in testdata")
	}
	return func() bool {
		f := flag.Lookup("update")
		return f != nil && f.Value.String() == "true"
	}
}()

// vtFixture is one won game: a numbered deal, its rules (scoring aside: the
// game is replayed under each) and the moves.
type vtFixture struct {
	name  string
	seed  uint64
	rules engine.Rules
	moves []string
}

func vtFileName(draw, passes int) string {
	p := "unlimited"
	if passes != 0 {
		p = fmt.Sprintf("passes%d", passes)
	}
	return fmt.Sprintf("draw%d-%s.txt", draw, p)
}

// vtLoad reads a fixture: "# key: value" header lines, then one move a line.
func vtLoad(path string) (vtFixture, error) {
	f, err := os.Open(path)
	if err != nil {
		return vtFixture{}, err
	}
	defer f.Close()
	fx := vtFixture{name: filepath.Base(path), rules: engine.DefaultRules()}
	sc := bufio.NewScanner(f)
	have := map[string]bool{}
	for line := 1; sc.Scan(); line++ {
		s := strings.TrimSpace(sc.Text())
		if s == "" {
			continue
		}
		if c, ok := strings.CutPrefix(s, "#"); ok {
			k, v, ok := strings.Cut(c, ":")
			if !ok {
				continue
			}
			k, v = strings.TrimSpace(k), strings.TrimSpace(v)
			have[k] = true
			switch k {
			case "seed":
				fx.seed, err = strconv.ParseUint(v, 10, 64)
			case "draw":
				fx.rules.Draw, err = strconv.Atoi(v)
			case "passes":
				fx.rules.Passes, err = strconv.Atoi(v)
			case "foundation_to_tableau":
				fx.rules.FoundationToTableau, err = strconv.ParseBool(v)
			case "undo":
				fx.rules.Undo, err = engine.ParseUndoPolicy(v)
			}
			if err != nil {
				return fx, fmt.Errorf("%s:%d: %v", path, line, err)
			}
			continue
		}
		fx.moves = append(fx.moves, s)
	}
	if err := sc.Err(); err != nil {
		return fx, err
	}
	for _, k := range []string{"seed", "draw", "passes", "foundation_to_tableau", "undo"} {
		if !have[k] {
			return fx, fmt.Errorf("%s: no %q header", path, k)
		}
	}
	return fx, fx.rules.Validate()
}

// vtReplay plays the fixture under scoring s, checking every step, and
// returns the won game.
func vtReplay(t *testing.T, fx vtFixture, s engine.Scoring) *engine.Game {
	g, _ := vtReplayDeltas(t, fx, s)
	return g
}

// vtReplayDeltas is vtReplay that also returns the score changes seen: the
// raw points of each move and, for the floored ones, "floored".
func vtReplayDeltas(t *testing.T, fx vtFixture, s engine.Scoring) (*engine.Game, map[string]bool) {
	t.Helper()
	r := fx.rules
	r.Scoring = s
	g, err := engine.NewGame(engine.NumberedDeal(fx.seed), r)
	if err != nil {
		t.Fatal(err)
	}
	// The expected score, kept from the rule book's tables: each move's
	// points from its kind and the events Apply reports, the standard floor
	// at 0, and undo taking back exactly the delta applied.
	want := 0
	if s == engine.ScoringVegas {
		want = -52
	}
	type done struct {
		kind    engine.MoveKind
		applied int
	}
	var hist []done
	seen := map[string]bool{}
	recycles := 0
	kinds := map[engine.MoveKind]int{}
	autoCompleted := false
	for i, text := range fx.moves {
		if !autoCompleted && g.Status() == engine.Playing && g.AllFaceUp() {
			autoCompleted = vtCheckAutoComplete(t, g)
		}
		m, err := engine.ParseMove(text)
		if err != nil {
			t.Fatalf("%s move %d: %v", fx.name, i+1, err)
		}
		if m.String() != text {
			t.Fatalf("%s move %d: %q is not canonical (%q)", fx.name, i+1, text, m.String())
		}
		if g.Status() != engine.Playing {
			t.Fatalf("%s move %d %s: the game is already %v", fx.name, i+1, text, g.Status())
		}
		ev, err := g.Apply(m)
		if err != nil {
			t.Fatalf("%s move %d %s in %v: %v", fx.name, i+1, text, g, err)
		}
		kinds[m.Kind]++
		if m.Kind == engine.Undo {
			last := hist[len(hist)-1]
			hist = hist[:len(hist)-1]
			want -= last.applied
			if last.kind == engine.Recycle {
				recycles--
			}
		} else {
			raw := 0
			switch s {
			case engine.ScoringStandard:
				switch m.Kind {
				case engine.WasteToTableau:
					raw = 5
				case engine.WasteToFoundation, engine.TableauToFoundation:
					raw = 10
				case engine.FoundationToTableau:
					raw = -15
				case engine.Recycle:
					if r.Draw == 1 {
						raw = -100
					} else if recycles >= 3 {
						raw = -20
					}
				}
				if ev.Has(engine.Revealed) {
					raw += 5
				}
				seen[strconv.Itoa(raw)] = true
				if raw < -want {
					seen["floored"] = true
				}
				raw = max(raw, -want) // the floor at 0
			case engine.ScoringVegas:
				if ev.Has(engine.ToFoundation) {
					raw = 5
				}
				if ev.Has(engine.FromFoundation) {
					raw = -5
				}
			}
			want += raw
			hist = append(hist, done{m.Kind, raw})
			if m.Kind == engine.Recycle {
				recycles++
			}
		}
		if g.Score() != want {
			t.Fatalf("%s %v move %d %s: score %d, the tables give %d", fx.name, s, i+1, text, g.Score(), want)
		}
		if g.Recycles() != recycles {
			t.Fatalf("%s move %d: Recycles() = %d, want %d", fx.name, i+1, g.Recycles(), recycles)
		}
		if last := i == len(fx.moves)-1; last != ev.Has(engine.GameWon) {
			t.Fatalf("%s move %d %s: events %v", fx.name, i+1, text, ev)
		}
	}
	if g.Status() != engine.Won || g.FoundationTotal() != engine.NumCards {
		t.Fatalf("%s ends %v with %d cards up", fx.name, g.Status(), g.FoundationTotal())
	}
	// The won game is over: nothing is legal, and its text and view say so.
	if g.IsStuck() || len(g.LegalMoves(nil)) != 0 || g.CanUndo() {
		t.Errorf("%s: won game: stuck %v, legal %v, can undo %v", fx.name, g.IsStuck(), g.LegalMoves(nil), g.CanUndo())
	}
	if _, err := g.Apply(engine.UndoMove()); !errors.Is(err, engine.ErrGameOver) {
		t.Errorf("%s: U after the win = %v, want ErrGameOver", fx.name, err)
	}
	if g2, err := engine.ParseGame(g.String(), r); err != nil || g2.Status() != engine.Won || g2.String() != g.String() {
		t.Errorf("%s: the won position %q parses to %v, %v", fx.name, g.String(), g2, err)
	}
	var v engine.View
	if js, err := json.Marshal(g.View(99000)); err != nil || json.Unmarshal(js, &v) != nil ||
		v.Status != engine.Won || len(v.LegalMoves(r, nil)) != 0 {
		t.Errorf("%s: the won game's view %s", fx.name, js)
	}
	if s == engine.ScoringVegas && g.Score() != 5*52-52 {
		t.Errorf("%s: vegas score of a won game %d, want 208", fx.name, g.Score())
	}
	if s == engine.ScoringNone && g.Score() != 0 {
		t.Errorf("%s: score %d under scoring none", fx.name, g.Score())
	}
	// Every fixture exercises undo and foundation-to-tableau.
	if kinds[engine.Undo] == 0 || kinds[engine.FoundationToTableau] == 0 {
		t.Errorf("%s has %d U and %d F-T moves; want some of each", fx.name, kinds[engine.Undo], kinds[engine.FoundationToTableau])
	}
	return g, seen
}

func TestVariantGames(t *testing.T) {
	seen := map[string]bool{}
	for _, v := range propVariants {
		name := vtFileName(v.Draw, v.Passes)
		fx, err := vtLoad(filepath.Join(vtDir, name))
		if err != nil {
			t.Fatalf("%v (regenerate with go test ./engine -run TestFindVariantGames -update)", err)
		}
		if fx.rules.Draw != v.Draw || fx.rules.Passes != v.Passes {
			t.Fatalf("%s holds rules %v", name, fx.rules)
		}
		for _, s := range propScorings {
			t.Run(fmt.Sprintf("%s/%v", strings.TrimSuffix(name, ".txt"), s), func(t *testing.T) {
				_, d := vtReplayDeltas(t, fx, s)
				for k := range d {
					seen[k] = true
				}
			})
		}
	}
	// Together the games cover every line of the standard table, the floor
	// included.
	for _, k := range []string{"5", "10", "15", "-15", "-100", "-20", "0", "floored"} {
		if !seen[k] {
			t.Errorf("no move in the games scores %s in standard scoring (seen %v)", k, seen)
		}
	}
}

// vtCheckAutoComplete checks AutoComplete on a game with every tableau card
// face up: the game does not change and, when it says it can finish, its
// moves win. With draw 1 and unlimited passes it always can: the lowest
// card not yet up is the next of its suit, and it is the top of its pile or
// comes up as the waste's top within a pass. It reports whether it finished.
func vtCheckAutoComplete(t *testing.T, g *engine.Game) bool {
	t.Helper()
	before := g.String()
	moves, ok := g.AutoComplete()
	if g.String() != before {
		t.Fatalf("AutoComplete changed the game")
	}
	if !ok {
		if len(moves) != 0 {
			t.Fatalf("AutoComplete failed with moves %v", moves)
		}
		if r := g.Rules(); r.Draw == 1 && r.Passes == 0 {
			t.Fatalf("AutoComplete cannot finish draw 1, unlimited passes, all face up: %v", g)
		}
		return false
	}
	c := g.Clone()
	for i, m := range moves {
		if _, err := c.Apply(m); err != nil {
			t.Fatalf("AutoComplete move %d %v: %v", i+1, m, err)
		}
	}
	if c.Status() != engine.Won {
		t.Fatalf("AutoComplete's moves end %v", c.Status())
	}
	return true
}

// TestVariantsTimedScore checks the time adjustment of standard scoring on a
// won game and on one still in play: 2 points off for every full 10 s, and a
// bonus of floor(700000 / seconds) for a won game of at least 30 s.
func TestVariantsTimedScore(t *testing.T) {
	fx, err := vtLoad(filepath.Join(vtDir, vtFileName(3, 0)))
	if err != nil {
		t.Fatal(err)
	}
	r := fx.rules
	g, err := engine.NewGame(engine.NumberedDeal(fx.seed), r)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range fx.moves[:len(fx.moves)/2] {
		play(t, g, s)
	}
	playing := g
	won := vtReplay(t, fx, engine.ScoringStandard)
	durations := []time.Duration{-time.Second, 0, 9999 * time.Millisecond, 10 * time.Second, 19 * time.Second,
		29999 * time.Millisecond, 30 * time.Second, 45500 * time.Millisecond, 3 * time.Minute, 61 * time.Minute, 100 * time.Hour}
	for _, d := range durations {
		secs := max(0, int(d/time.Second))
		penalty := 2 * (secs / 10)
		bonus := 0
		if secs >= 30 {
			bonus = 700000 / secs
		}
		if got := engine.TimePenalty(d); got != penalty {
			t.Errorf("TimePenalty(%v) = %d, want %d", d, got, penalty)
		}
		if got := engine.TimeBonus(d); got != bonus {
			t.Errorf("TimeBonus(%v) = %d, want %d", d, got, bonus)
		}
		if got, want := won.TimedScore(d), max(0, won.Score()-penalty)+bonus; got != want {
			t.Errorf("won game of %v: TimedScore = %d, want max(0, %d − %d) + %d = %d", d, got, won.Score(), penalty, bonus, want)
		}
		if got, want := playing.TimedScore(d), max(0, playing.Score()-penalty); got != want {
			t.Errorf("game in play at %v: TimedScore = %d, want max(0, %d − %d) = %d", d, got, playing.Score(), penalty, want)
		}
		for _, s := range []engine.Scoring{engine.ScoringVegas, engine.ScoringNone} {
			if got := engine.TimedScore(s, -12, d, true); got != -12 {
				t.Errorf("TimedScore(%v, -12, %v, won) = %d: no time adjustment", s, d, got)
			}
		}
	}
	if got := engine.TimedScore(engine.ScoringStandard, 655, 183*time.Second, true); got != 655-36+700000/183 {
		t.Errorf("the 655 example after 183 s: %d", got)
	}
	for _, s := range propScorings[1:] {
		w := vtReplay(t, fx, s)
		if got := w.TimedScore(5 * time.Minute); got != w.Score() {
			t.Errorf("%v: TimedScore = %d, want the points %d", s, got, w.Score())
		}
	}
}

// ---------------------------------------------------------------------------
// The finder, run under -update.

// vtKey is a position's key for the solver: the text form without the score,
// and without the recycles when passes are unlimited.
func vtKey(seed maphash.Seed, g *engine.Game, unlimited bool, buf []byte) uint64 {
	b := g.AppendText(buf[:0])
	b = b[:lastIndexByte(b, ' ')]
	if unlimited {
		b = b[:lastIndexByte(b, ' ')]
	}
	return maphash.Bytes(seed, b)
}

func lastIndexByte(b []byte, c byte) int {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == c {
			return i
		}
	}
	return -1
}

// vtSolver is a depth-first search for a win with a visited set, bounded in
// nodes. Safe moves to the foundations are played at once.
type vtSolver struct {
	r       engine.Rules
	seen    map[uint64]bool
	seed    maphash.Seed
	nodes   int
	budget  int
	line    []engine.Move
	buf     []byte
	scratch [][]engine.Move
}

func (s *vtSolver) solve(g *engine.Game, depth int) bool {
	if g.Status() == engine.Won {
		return true
	}
	if g.Status() != engine.Playing || s.nodes >= s.budget {
		return false
	}
	k := vtKey(s.seed, g, s.r.Passes == 0, s.buf)
	if s.seen[k] {
		return false
	}
	s.seen[k] = true
	s.nodes++
	if m, ok := g.SafeMove(); ok {
		saved := *g
		if _, err := g.Apply(m); err != nil {
			panic(err)
		}
		s.line = append(s.line, m)
		if s.solve(g, depth+1) {
			return true
		}
		s.line = s.line[:len(s.line)-1]
		*g = saved
		return false
	}
	for len(s.scratch) <= depth {
		s.scratch = append(s.scratch, nil)
	}
	moves := s.order(g, g.LegalMoves(s.scratch[depth][:0]))
	s.scratch[depth] = moves
	for _, m := range moves {
		saved := *g
		if _, err := g.Apply(m); err != nil {
			panic(err)
		}
		s.line = append(s.line, m)
		if s.solve(g, depth+1) {
			return true
		}
		s.line = s.line[:len(s.line)-1]
		*g = saved
	}
	return false
}

// order drops U, F-T and pointless moves and sorts the rest by promise.
func (s *vtSolver) order(g *engine.Game, legal []engine.Move) []engine.Move {
	rank := func(m engine.Move) int {
		switch m.Kind {
		case engine.TableauToFoundation, engine.WasteToFoundation:
			return 0
		case engine.TableauToTableau:
			down, up := g.Pile(int(m.From))
			tdown, tup := g.Pile(int(m.To))
			moved := 0 // the cards that go: from the target's top rank
			if len(tup) == 0 && tdown == 0 {
				for i, c := range up {
					if c.Rank() == engine.NumRanks {
						moved = len(up) - i
					}
				}
			} else {
				moved = tup[len(tup)-1].Rank() - up[len(up)-1].Rank()
			}
			switch {
			case moved == len(up) && down > 0:
				return 1 // turns a card
			case moved == len(up) && len(tup) == 0:
				return -1 // a whole pile to an empty one: pointless
			case moved == len(up):
				return 3 // empties a pile
			}
			return 5 // uncovers a face-up card
		case engine.WasteToTableau:
			return 2
		case engine.Draw:
			return 6
		case engine.Recycle:
			return 7
		}
		return -1 // U, F-T
	}
	var buckets [8][]engine.Move
	for _, m := range legal {
		if r := rank(m); r >= 0 {
			buckets[r] = append(buckets[r], m)
		}
	}
	out := legal[:0]
	for _, b := range buckets {
		out = append(out, b...)
	}
	return out
}

// vtDecorate adds to a winning line, without changing where it leads: undo
// pairs (a move then U) of several kinds, an F-T that is undone and one
// that is sent back up, and, with unlimited passes, extra passes through
// the stock (R then enough D to turn it all again).
func vtDecorate(d engine.Deal, r engine.Rules, line []engine.Move) ([]engine.Move, error) {
	g, err := engine.NewGame(d, r)
	if err != nil {
		return nil, err
	}
	var out []engine.Move
	do := func(ms ...engine.Move) error {
		for _, m := range ms {
			if _, err := g.Apply(m); err != nil {
				return fmt.Errorf("%v after %d moves: %v", m, len(out), err)
			}
			out = append(out, m)
		}
		return nil
	}
	// tryPair plays m then U if m leaves the game in play.
	tryPair := func(m engine.Move) bool {
		c := g.Clone()
		if _, err := c.Apply(m); err != nil || c.Status() != engine.Playing {
			return false
		}
		return do(m, engine.UndoMove()) == nil
	}
	pairKinds := []engine.MoveKind{engine.Draw, engine.TableauToTableau, engine.WasteToTableau, engine.TableauToFoundation,
		engine.WasteToFoundation, engine.Recycle}
	pairDone := map[engine.MoveKind]bool{}
	f2tDone, chainDone := false, false
	extraPasses := 0
	wantPasses := 0
	if r.Passes == 0 {
		wantPasses = map[int]int{1: 1, 3: 4}[r.Draw]
	}
	for i, m := range line {
		if g.Status() != engine.Playing {
			return nil, fmt.Errorf("the line ends early")
		}
		legal := g.LegalMoves(nil)
		// Undo pairs, one of each kind where it first comes up.
		for _, k := range pairKinds {
			if pairDone[k] || i < 2 {
				continue
			}
			for _, c := range legal {
				if c.Kind == k && tryPair(c) {
					pairDone[k] = true
					break
				}
			}
		}
		// An undo chain: two moves, two U.
		if !chainDone && i > len(line)/2 && g.StockSize() > 0 {
			c := g.Clone()
			if _, err := c.Apply(engine.DrawMove()); err == nil && c.Status() == engine.Playing && c.StockSize() > 0 {
				if _, err := c.Apply(engine.DrawMove()); err == nil && c.Status() == engine.Playing {
					if err := do(engine.DrawMove(), engine.DrawMove(), engine.UndoMove(), engine.UndoMove()); err != nil {
						return nil, err
					}
					chainDone = true
				}
			}
		}
		// A card back from a foundation: undone once, then played and sent up again.
		if !f2tDone && g.Score() >= 10 {
			for _, c := range legal {
				if c.Kind == engine.FoundationToTableau {
					back := engine.PileUp(int(c.To))
					if err := do(c, engine.UndoMove(), c, back); err != nil {
						return nil, err
					}
					f2tDone = true
					break
				}
			}
		}
		// Extra passes. In draw 1 one at the start, whose recycle costs
		// more than the score of 0 (the floor), undone once; in draw 3 late
		// in the game, when the stock is empty, where the fourth recycle and
		// later cost 20.
		if extraPasses < wantPasses && r.Draw == 1 && i == 0 {
			for g.StockSize() > 0 {
				if err := do(engine.DrawMove()); err != nil {
					return nil, err
				}
			}
			if err := do(engine.RecycleMove(), engine.UndoMove(), engine.RecycleMove()); err != nil {
				return nil, err
			}
			extraPasses++
		}
		if extraPasses < wantPasses && i > len(line)*2/3 && g.StockSize() == 0 && g.WasteSize() > 0 {
			for extraPasses < wantPasses {
				n := g.WasteSize()
				if err := do(engine.RecycleMove()); err != nil {
					return nil, err
				}
				for ; n > 0; n -= r.Draw {
					if err := do(engine.DrawMove()); err != nil {
						return nil, err
					}
				}
				extraPasses++
			}
		}
		if err := do(m); err != nil {
			return nil, err
		}
	}
	if g.Status() != engine.Won {
		return nil, fmt.Errorf("the decorated line ends %v", g.Status())
	}
	if !f2tDone || !pairDone[engine.Draw] || extraPasses < wantPasses {
		return nil, fmt.Errorf("no room for the decorations (f2t %v, pairs %v, passes %d)", f2tDone, pairDone, extraPasses)
	}
	return out, nil
}

// TestFindVariantGames regenerates testdata/games under -update: for each
// variant it searches numbered deals for a win, decorates it and writes it.
func TestFindVariantGames(t *testing.T) {
	if !vtUpdate() {
		t.Skip("regenerates testdata/games; run with -update")
	}
	if err := os.MkdirAll(vtDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, v := range propVariants {
		r := engine.DefaultRules()
		r.Draw, r.Passes = v.Draw, v.Passes
		found := false
		for seed := uint64(1); seed <= 400 && !found; seed++ {
			d := engine.NumberedDeal(seed)
			g, err := engine.NewGame(d, r)
			if err != nil {
				t.Fatal(err)
			}
			s := &vtSolver{r: r, seen: map[uint64]bool{}, seed: maphash.MakeSeed(), budget: 200000}
			if !s.solve(g, 0) {
				continue
			}
			line, err := vtDecorate(d, r, s.line)
			if err != nil {
				t.Logf("%v seed %d: %v", v, seed, err)
				continue
			}
			var b strings.Builder
			fmt.Fprintf(&b, "# A won game of Klondike, replayed by TestVariantGames (engine/variants_test.go)\n")
			fmt.Fprintf(&b, "# under each scoring. Regenerate: go test ./engine -run TestFindVariantGames -update\n")
			fmt.Fprintf(&b, "# seed: %d\n# draw: %d\n# passes: %d\n# foundation_to_tableau: %v\n# undo: %v\n# moves: %d\n",
				seed, r.Draw, r.Passes, r.FoundationToTableau, r.Undo, len(line))
			for _, m := range line {
				b.WriteString(m.String())
				b.WriteByte('\n')
			}
			path := filepath.Join(vtDir, vtFileName(v.Draw, v.Passes))
			if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: seed %d, %d moves (%d searched), %d nodes", path, seed, len(line), len(s.line), s.nodes)
			found = true
		}
		if !found {
			t.Errorf("no win found for draw %d passes %d", v.Draw, v.Passes)
		}
	}
}
