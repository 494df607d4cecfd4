package engine_test

// Benchmarks of the engine's hot paths, and tests that they do not allocate.
// docs/performance.md records the figures:
//
//	go test ./engine -run '^$' -bench . -benchmem -count 5

import (
	"path/filepath"
	"testing"

	"klondike/engine"
)

var (
	benchSinkEvents engine.Events
	benchSinkBool   bool
	benchSinkInt    int
	benchSinkBytes  []byte
	benchSinkMoves  []engine.Move
	benchSinkGame   engine.Game
	benchSinkPtr    *engine.Game
)

// benchMaxHistory bounds the undo history of the recorded game, so that it
// stays within the room NewGame gives it and no Apply allocates.
const benchMaxHistory = 250

// benchRecord is a real game: the won draw 3 game of testdata/games (with
// its undos and its card back from a foundation), under standard scoring,
// cut where its undo history would outgrow benchMaxHistory. It returns the
// opening position, the moves as text and parsed, and snapshots: snap[i] is
// a clone of the game before move i.
func benchRecord(tb testing.TB) (start *engine.Game, texts []string, moves []engine.Move, snap []*engine.Game) {
	tb.Helper()
	fx, err := vtLoad(filepath.Join(vtDir, vtFileName(3, 0)))
	if err != nil {
		tb.Fatal(err)
	}
	r := fx.rules
	r.Scoring = engine.ScoringStandard
	start, err = engine.NewGame(engine.NumberedDeal(fx.seed), r)
	if err != nil {
		tb.Fatal(err)
	}
	g := start.Clone()
	depth := 0
	for _, s := range fx.moves {
		m, err := engine.ParseMove(s)
		if err != nil {
			tb.Fatal(err)
		}
		if m.Kind == engine.Undo {
			depth--
		} else if depth++; depth > benchMaxHistory {
			break
		}
		snap = append(snap, g.Clone())
		if _, err := g.Apply(m); err != nil {
			tb.Fatalf("%s move %d %s: %v", fx.name, len(moves)+1, s, err)
		}
		texts = append(texts, s)
		moves = append(moves, m)
	}
	return start, texts, moves, snap
}

// benchMid returns the recorded game's position halfway through.
func benchMid(tb testing.TB) *engine.Game {
	_, _, _, snap := benchRecord(tb)
	return snap[len(snap)/2]
}

// BenchmarkParseValidateApply parses each move of the recorded game and
// applies it (Apply validates it). When the game ends the benchmark starts
// it over by copying the opening position's Game value into the game (no
// clone and no allocation: the copy takes over the opening's empty history
// with its room), so the reset costs a copy of about 250 bytes once per
// replay of 268 moves, inside the timing.
func BenchmarkParseValidateApply(b *testing.B) {
	start, texts, _, _ := benchRecord(b)
	g := start.Clone()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if i == len(texts) {
			*g = *start
			i = 0
		}
		m, err := engine.ParseMove(texts[i])
		if err != nil {
			b.Fatal(err)
		}
		ev, err := g.Apply(m)
		if err != nil {
			b.Fatalf("move %d %s: %v", i+1, texts[i], err)
		}
		benchSinkEvents = ev
		i++
	}
}

// BenchmarkApply is BenchmarkParseValidateApply with the moves parsed beforehand.
func BenchmarkApply(b *testing.B) {
	start, texts, moves, _ := benchRecord(b)
	g := start.Clone()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if i == len(moves) {
			*g = *start
			i = 0
		}
		ev, err := g.Apply(moves[i])
		if err != nil {
			b.Fatalf("move %d %s: %v", i+1, texts[i], err)
		}
		benchSinkEvents = ev
		i++
	}
}

// BenchmarkApplyUndo plays a legal move and takes it back, on the position
// halfway through the recorded game: one op is two Apply calls.
func BenchmarkApplyUndo(b *testing.B) {
	g := benchMid(b)
	legal := g.LegalMoves(nil)
	m := legal[0]
	for _, l := range legal {
		if l.Kind == engine.TableauToTableau {
			m = l
			break
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := g.Apply(m); err != nil {
			b.Fatal(err)
		}
		if _, err := g.Apply(engine.UndoMove()); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLegalMoves(b *testing.B) {
	g := benchMid(b)
	dst := make([]engine.Move, 0, 64)
	b.ReportAllocs()
	for b.Loop() {
		dst = g.LegalMoves(dst[:0])
	}
	benchSinkMoves = dst
}

func BenchmarkViewLegalMoves(b *testing.B) {
	g := benchMid(b)
	v, r := g.View(0), g.Rules()
	dst := make([]engine.Move, 0, 64)
	b.ReportAllocs()
	for b.Loop() {
		dst = v.LegalMoves(r, dst[:0])
	}
	benchSinkMoves = dst
}

func BenchmarkViewInto(b *testing.B) {
	g := benchMid(b)
	var v engine.View
	b.ReportAllocs()
	for b.Loop() {
		g.ViewInto(&v, 123456)
	}
}

func BenchmarkIsStuck(b *testing.B) {
	g := benchMid(b)
	b.ReportAllocs()
	for b.Loop() {
		benchSinkBool = g.IsStuck()
	}
}

func BenchmarkNewGame(b *testing.B) {
	d := engine.NumberedDeal(1)
	r := engine.DefaultRules()
	b.ReportAllocs()
	for b.Loop() {
		g, err := engine.NewGame(d, r)
		if err != nil {
			b.Fatal(err)
		}
		benchSinkPtr = g
	}
}

// BenchmarkBaselineCopyGame is a trivial baseline measured in the same run,
// so that figures can be compared across machines as ratios: copying one
// Game value (the position, about 250 bytes).
func BenchmarkBaselineCopyGame(b *testing.B) {
	g := benchMid(b)
	b.ReportAllocs()
	for b.Loop() {
		benchSinkGame = *g
	}
}

// TestZeroAllocs checks the promises of the engine's doc comments: ParseMove
// of valid input, Apply of a legal move while the history has room,
// LegalMoves with room in the slice, and the view's
// move generator and IsStuck, do not allocate. (The counts are the same
// under the race detector and with coverage, so nothing is skipped there.)
func TestZeroAllocs(t *testing.T) {
	_, texts, moves, snap := benchRecord(t)
	t.Run("ParseMove", func(t *testing.T) {
		valid := []string{"D", "R", "U", "W-F", "W-T3", "T7-F", "T1-T2", "T2:5-T6", "T3:13-T1", "FH-T4",
			"d", "w-t1", "t4:10-t2", "fs-t7", "  T1-T2\t", "\nU\r\n"}
		valid = append(valid, texts...)
		for _, s := range valid {
			if n := testing.AllocsPerRun(50, func() {
				m, err := engine.ParseMove(s)
				benchSinkInt += int(m.Kind)
				if err != nil {
					t.Fatal(err)
				}
			}); n != 0 {
				t.Errorf("ParseMove(%q): %v allocations", s, n)
			}
		}
	})
	t.Run("Apply", func(t *testing.T) {
		g := new(engine.Game)
		kinds := map[engine.MoveKind]bool{}
		for i, m := range moves {
			if n := testing.AllocsPerRun(20, func() {
				*g = *snap[i] // the history's room is the snapshot's
				ev, err := g.Apply(m)
				if err != nil {
					t.Fatalf("move %d %v: %v", i+1, m, err)
				}
				benchSinkEvents = ev
			}); n != 0 {
				t.Errorf("move %d %v: %v allocations", i+1, m, n)
			}
			kinds[m.Kind] = true
		}
		for k := engine.Draw; k <= engine.Undo; k++ {
			if !kinds[k] {
				t.Errorf("the recorded game has no move of kind %d", k)
			}
		}
	})
	t.Run("LegalMoves", func(t *testing.T) {
		dst := make([]engine.Move, 0, 64)
		for i, g := range snap {
			if n := testing.AllocsPerRun(20, func() { dst = g.LegalMoves(dst[:0]) }); n != 0 {
				t.Errorf("position %d: %v allocations", i, n)
			}
		}
	})
	t.Run("ViewLegalMoves", func(t *testing.T) {
		dst := make([]engine.Move, 0, 64)
		for i, g := range snap {
			v, r := g.View(int64(i)), g.Rules()
			if n := testing.AllocsPerRun(20, func() { dst = v.LegalMoves(r, dst[:0]) }); n != 0 {
				t.Errorf("position %d: %v allocations", i, n)
			}
		}
	})
	t.Run("IsStuck", func(t *testing.T) {
		for i, g := range snap {
			if n := testing.AllocsPerRun(20, func() { benchSinkBool = g.IsStuck() }); n != 0 {
				t.Errorf("position %d: %v allocations", i, n)
			}
		}
	})
}
