package engine_test

// Benchmarks of the hot paths for each game, beside Klondike's under the same
// recipe, and the zero-allocation promises for every game:
//
//	go test ./engine -run '^$' -bench Variants -benchmem

import (
	"math/rand/v2"
	"testing"

	"klondike/engine"
)

// variantRecord plays a fixed game of v: deal 617, draw 1 (unlimited passes
// where the game has them), a seeded choice among the legal moves that
// favours progress, with an undo and a redo now and then, until the game
// ends or the undo history would outgrow benchMaxHistory: a slow random
// game, which sends few cards up. It returns the
// opening position, the moves, and snap[i], a clone of the game before
// move i.
func variantRecord(tb testing.TB, v engine.Variant) (start *engine.Game, moves []engine.Move, snap []*engine.Game) {
	tb.Helper()
	r := engine.DefaultRulesFor(v)
	r.Draw = 1
	if v != engine.Whitehead {
		r.Passes = 0
	}
	start, err := engine.NewGame(engine.NumberedDealFor(v, 617), r)
	if err != nil {
		tb.Fatal(err)
	}
	g := start.Clone()
	rng := rand.New(rand.NewPCG(617, uint64(v)))
	var legal []engine.Move
	var last engine.Move
	depth := 0
	for g.Status() == engine.Playing && depth < benchMaxHistory {
		legal = g.LegalMoves(legal[:0])
		var m engine.Move
		switch x := rng.IntN(30); {
		case x == 0 && g.CanUndo():
			m = engine.UndoMove()
		case x < 15 && last.Kind == engine.Undo && g.CanRedo():
			m = engine.RedoMove()
		default:
			m = pickProgress(rng, legal, last)
		}
		if m.Kind == engine.Undo {
			depth--
		} else {
			depth++
		}
		snap = append(snap, g.Clone())
		if _, err := g.Apply(m); err != nil {
			tb.Fatalf("%v move %d %v: %v", v, len(moves)+1, m, err)
		}
		moves = append(moves, m)
		last = m
	}
	return start, moves, snap
}

// pickProgress picks a legal move but U at random, favouring moves to the
// foundations and leaving out the move that takes the last one back.
func pickProgress(rng *rand.Rand, legal []engine.Move, last engine.Move) engine.Move {
	weight := func(m engine.Move) int {
		switch m.Kind {
		case engine.WasteToFoundation, engine.TableauToFoundation:
			return 40
		case engine.WasteToTableau, engine.Draw:
			return 8
		case engine.TableauToTableau:
			if last.Kind == engine.TableauToTableau && m.From == last.To && m.To == last.From {
				return 0
			}
			return 3
		case engine.Recycle, engine.FoundationToTableau:
			return 1
		}
		return 0
	}
	total := 0
	for _, m := range legal {
		total += weight(m)
	}
	if total == 0 {
		return legal[0]
	}
	x := rng.IntN(total)
	for _, m := range legal {
		if x -= weight(m); x < 0 {
			return m
		}
	}
	return legal[0]
}

func BenchmarkVariants(b *testing.B) {
	for v := range engine.Variant(engine.NumVariants) {
		start, moves, snap := variantRecord(b, v)
		mid := snap[len(snap)/2]
		b.Run(v.String()+"/Apply", func(b *testing.B) {
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
					b.Fatalf("move %d %v: %v", i+1, moves[i], err)
				}
				benchSinkEvents = ev
				i++
			}
		})
		b.Run(v.String()+"/LegalMoves", func(b *testing.B) {
			dst := make([]engine.Move, 0, 128)
			b.ReportAllocs()
			for b.Loop() {
				dst = mid.LegalMoves(dst[:0])
			}
			benchSinkMoves = dst
		})
		b.Run(v.String()+"/ViewLegalMoves", func(b *testing.B) {
			view, r := mid.View(0), mid.Rules()
			dst := make([]engine.Move, 0, 128)
			b.ReportAllocs()
			for b.Loop() {
				dst = view.LegalMoves(r, dst[:0])
			}
			benchSinkMoves = dst
		})
		b.Run(v.String()+"/ViewInto", func(b *testing.B) {
			var view engine.View
			b.ReportAllocs()
			for b.Loop() {
				mid.ViewInto(&view, 123456)
			}
		})
		b.Run(v.String()+"/IsStuck", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				benchSinkBool = mid.IsStuck()
			}
		})
		b.Run(v.String()+"/NewGame", func(b *testing.B) {
			d, r := engine.NumberedDealFor(v, 1), start.Rules()
			b.ReportAllocs()
			for b.Loop() {
				g, err := engine.NewGame(d, r)
				if err != nil {
					b.Fatal(err)
				}
				benchSinkPtr = g
			}
		})
	}
}

// TestZeroAllocsVariants checks, for every game, that Apply of a legal move
// while the history has room, LegalMoves and the view's move generator with
// room in the slice and IsStuck do not allocate,
// and that the recorded games cover every kind of move.
func TestZeroAllocsVariants(t *testing.T) {
	for v := range engine.Variant(engine.NumVariants) {
		t.Run(v.String(), func(t *testing.T) {
			_, moves, snap := variantRecord(t, v)
			g := new(engine.Game)
			kinds := map[engine.MoveKind]bool{}
			dst := make([]engine.Move, 0, 256)
			for i, m := range moves {
				if n := testing.AllocsPerRun(5, func() {
					*g = *snap[i]
					if _, err := g.Apply(m); err != nil {
						t.Fatalf("move %d %v: %v", i+1, m, err)
					}
				}); n != 0 {
					t.Errorf("Apply(%v) at move %d: %v allocations", m, i+1, n)
				}
				kinds[m.Kind] = true
				s := snap[i]
				view, r := s.View(0), s.Rules()
				if n := testing.AllocsPerRun(5, func() {
					dst = s.LegalMoves(dst[:0])
					dst = view.LegalMoves(r, dst[:0])
					benchSinkBool = s.IsStuck()
				}); n != 0 {
					t.Errorf("position %d: %v allocations", i, n)
				}
			}
			for _, k := range []engine.MoveKind{engine.Draw, engine.TableauToTableau, engine.Undo, engine.Redo} {
				if !kinds[k] {
					t.Errorf("the recorded game has no move of kind %d", k)
				}
			}
			if !kinds[engine.WasteToFoundation] && !kinds[engine.TableauToFoundation] {
				t.Error("the recorded game sends no card up")
			}
		})
	}
}
