package solver

import (
	"bytes"
	"slices"
	"sync"
	"testing"

	"klondike/engine"
)

// bruteForce decides a position by trying every legal move of the engine
// (no undo) with a set of visited positions. It reports false for complete
// when it gave up after limit positions. It keeps positions as text, so
// that only one engine game is alive at a time.
func bruteForce(g *engine.Game, limit int) (winnable, complete bool) {
	r := g.Rules()
	r.Undo, r.Scoring = engine.UndoOff, engine.ScoringNone
	unlimited := r.Passes == 0
	var text, buf []byte
	// key is the game's text, with the recycles made as 0 when they do not
	// matter (no limit on passes).
	key := func(g *engine.Game) []byte {
		text = g.AppendText(text[:0])
		if !unlimited {
			return text
		}
		score := bytes.LastIndexByte(text, ' ')
		rec := bytes.LastIndexByte(text[:score], ' ')
		buf = append(append(append(buf[:0], text[:rec+1]...), '0'), text[score:]...)
		return buf
	}
	start, err := engine.ParseGame(g.String(), engine.Rules{Draw: r.Draw, Passes: r.Passes,
		FoundationToTableau: r.FoundationToTableau, Undo: r.Undo, Scoring: r.Scoring, Game: r.Game})
	if err != nil {
		// A score field the zero floor would refuse cannot happen: the
		// text comes from a game.
		panic(err)
	}
	k0 := string(key(start))
	seen := map[string]bool{k0: true}
	stack := []string{k0}
	var moves []engine.Move
	for len(stack) > 0 {
		text := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		cur, err := engine.ParseGame(text, r)
		if err != nil {
			panic(err)
		}
		if cur.Status() == engine.Won {
			return true, true
		}
		moves = cur.LegalMoves(moves[:0])
		// The stack pops the last move pushed first: push foundation moves
		// last, so that a win, when there is one, comes soon.
		slices.SortStableFunc(moves, func(a, b engine.Move) int { return bruteRank(b) - bruteRank(a) })
		for _, m := range moves {
			cp := cur.Checkpoint()
			if _, err := cur.Apply(m); err != nil {
				panic(err)
			}
			if cur.Status() == engine.Won {
				return true, true
			}
			kb := key(cur)
			cur.Rollback(cp)
			if seen[string(kb)] {
				continue
			}
			if len(seen) >= limit {
				return false, false
			}
			k := string(kb)
			seen[k] = true
			stack = append(stack, k)
		}
	}
	return false, true
}

func bruteRank(m engine.Move) int {
	switch m.Kind {
	case engine.TableauToFoundation, engine.WasteToFoundation:
		return 4
	case engine.TableauToTableau:
		return 3
	case engine.WasteToTableau:
		return 2
	case engine.Draw, engine.Recycle:
		return 1
	}
	return 0
}

// confirmedUnwinnable is checkSolve's answer for an unwinnable verdict that
// the exhaustive search confirmed.
const confirmedUnwinnable Verdict = -1

// bruteLimit is the positions an exhaustive search (bruteForce) may visit
// before it gives up.
var bruteLimit = size{long: 50_000, normal: 10_000, short: 5_000, race: 2_000}

// checkSolve solves g (the position text) with 1,000,000 nodes and checks
// the verdict: unknown is an error, a win must replay through the engine,
// and an unwinnable verdict must not be contradicted by the brute-force
// search within limit. It returns the verdict, or confirmedUnwinnable when
// the brute force searched everything and found no win.
func checkSolve(t *testing.T, text string, g *engine.Game, limit int) Verdict {
	t.Helper()
	res := SolveGame(g, Budget{Nodes: 1_000_000})
	switch res.Verdict {
	case Unknown:
		t.Errorf("%s: unknown after %d nodes", text, res.Nodes)
	case Winnable:
		if err := replayOn(g.Clone(), res.Moves); err != nil {
			t.Errorf("%s: %v", text, err)
		}
	case Unwinnable:
		won, complete := bruteForce(g, limit)
		if won {
			t.Errorf("%s: solver says unwinnable, brute force wins", text)
		}
		if complete {
			return confirmedUnwinnable
		}
	}
	return res.Verdict
}

// solveRef solves with the reference search: no reductions but aces and
// twos going up at once.
func solveRef(g *engine.Game, b Budget) Result {
	return solveWith(g, b, searchOpts{ref: true})
}

// TestAgainstBruteForce checks the solver's verdicts on small random
// positions in every variant of every game: a winnable verdict must replay to a win
// through the engine, and for an unwinnable one an exhaustive search over
// the engine's own legal moves (no pruning, no macro moves) must find no
// win. That search gives up after a number of positions (worrying back
// makes even small positions large), but a win it finds before is still a
// counterexample; the log says how many verdicts it confirmed fully.
func TestAgainstBruteForce(t *testing.T) {
	positions, limit := size{long: 150, normal: 40, short: 12, race: 8}.get(), bruteLimit.get()
	var mu sync.Mutex
	var totalConfirmed int
	t.Cleanup(func() {
		if !t.Failed() && totalConfirmed < positions/4 {
			t.Errorf("only %d unwinnable verdicts confirmed in all", totalConfirmed)
		}
	})
	for _, r := range allVariants() {
		r.Undo = engine.UndoOff
		t.Run(variantName(r), func(t *testing.T) {
			t.Parallel()
			rng := variantRNG(r, 0, 7)
			var win, lose, confirmed int
			for range positions {
				text := randomPosition(rng, r)
				g, err := engine.ParseGame(text, r)
				if err != nil {
					t.Fatalf("%s: %v", text, err)
				}
				switch checkSolve(t, text, g, limit) {
				case Winnable:
					win++
				case Unwinnable:
					lose++
				case confirmedUnwinnable:
					lose++
					confirmed++
				}
			}
			t.Logf("%d winnable (replayed), %d unwinnable (%d confirmed by exhaustive search)", win, lose, confirmed)
			mu.Lock()
			totalConfirmed += confirmed
			mu.Unlock()
		})
	}
}

// TestAgainstReference compares the full solver with the reference search
// on positions part way through random games: where both decide, they must
// agree, and every win must replay.
func TestAgainstReference(t *testing.T) {
	positions := size{long: 40, normal: 10, short: 4, race: 2}.get()
	for _, r := range allVariants() {
		r.Undo = engine.UndoOff
		t.Run(variantName(r), func(t *testing.T) {
			t.Parallel()
			rng := variantRNG(r, 5, 11)
			var agree, lose, undecided int
			for i := range positions {
				d := engine.NumberedDealFor(r.Game, uint64(1000+i))
				g := randomWalk(rng, d, r, 30+rng.IntN(120))
				if g.Status() != engine.Playing {
					continue
				}
				full := SolveGame(g, Budget{Nodes: 100_000})
				ref := solveRef(g, Budget{Nodes: 100_000})
				for _, res := range []Result{full, ref} {
					if res.Verdict == Winnable {
						if err := replayOn(g.Clone(), res.Moves); err != nil {
							t.Errorf("%v: %v", g, err)
						}
					}
				}
				switch {
				case full.Verdict == Unknown || ref.Verdict == Unknown:
					undecided++
					if full.Verdict == Unwinnable && ref.Verdict == Winnable || full.Verdict == Winnable && ref.Verdict == Unwinnable {
						t.Errorf("%v: full %v, reference %v", g, full.Verdict, ref.Verdict)
					}
				case full.Verdict != ref.Verdict:
					t.Errorf("%v: full search %v, reference %v", g, full.Verdict, ref.Verdict)
				default:
					agree++
					if full.Verdict == Unwinnable {
						lose++
					}
				}
			}
			t.Logf("%d agree (%d unwinnable), %d undecided by one of them", agree, lose, undecided)
		})
	}
}

// TestSmallPositionsAgainstReference compares the solver, with twin stacks
// and without, with the reference search (no reductions but aces and twos
// going up) on small random positions. With foundation-to-tableau moves
// the exhaustive search over the engine's moves rarely finishes on them
// (TestAgainstBruteForce), but the reference search, with its macro talon
// moves, decides nearly all. Where it decides, the verdicts must agree,
// and every win must replay. It is the check that catches lost wins with
// worrying back, where the exhaustive search cannot
// (TestFoundationCardsShareAUse keeps the positions it found).
func TestSmallPositionsAgainstReference(t *testing.T) {
	positions := size{long: 200, normal: 60, short: 20, race: 6}.get()
	const stream = 41
	for _, r := range allVariants() {
		r.Undo = engine.UndoOff
		t.Run(variantName(r), func(t *testing.T) {
			t.Parallel()
			rng := variantRNG(r, 9, stream)
			var decided, lose int
			for range positions {
				text := randomPosition(rng, r)
				g, err := engine.ParseGame(text, r)
				if err != nil || g.Status() != engine.Playing {
					continue
				}
				ref := solveRef(g, Budget{Nodes: 200_000})
				if ref.Verdict == Unknown {
					continue
				}
				decided++
				if ref.Verdict == Unwinnable {
					lose++
				}
				for _, noTwins := range []bool{false, true} {
					res := solveWith(g, Budget{Nodes: 500_000}, searchOpts{noTwins: noTwins})
					if res.Verdict == Winnable {
						if err := replayOn(g.Clone(), res.Moves); err != nil {
							t.Errorf("%s (noTwins %v): %v", text, noTwins, err)
						}
					}
					if res.Verdict != Unknown && res.Verdict != ref.Verdict {
						t.Errorf("%s (noTwins %v): %v, reference %v", text, noTwins, res.Verdict, ref.Verdict)
					}
				}
			}
			t.Logf("%d of %d positions decided by the reference search (%d unwinnable)", decided, positions, lose)
			if decided < positions/2 {
				t.Errorf("the reference search decided only %d of %d", decided, positions)
			}
		})
	}
}
