package dealpool

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"klondike/engine"
	"klondike/engine/solver"
)

// counter returns a seed source that counts from first, and a function
// that reports how many seeds it gave. The count may be read while a
// worker draws.
func counter(first uint64) (seeds func() uint64, calls func() int) {
	var n atomic.Int64
	return func() uint64 {
			return first + uint64(n.Add(1)-1)
		}, func() int {
			return int(n.Load())
		}
}

// fakeSolve calls a deal winnable when its number is a multiple of 3; it
// identifies the deal by its layout, as the pool passes only the deal.
func fakeSolve(known map[string]uint64) func(engine.Deal, engine.Rules, solver.Budget) solver.Result {
	return func(d engine.Deal, r engine.Rules, b solver.Budget) solver.Result {
		js, _ := d.MarshalJSON()
		if known[string(js)]%3 == 0 {
			return solver.Result{Verdict: solver.Winnable}
		}
		return solver.Result{Verdict: solver.Unwinnable}
	}
}

// layouts maps the layouts of deals first..first+n−1 to their numbers.
func layouts(first uint64, n int) map[string]uint64 {
	m := make(map[string]uint64, n)
	for s := first; s < first+uint64(n); s++ {
		js, _ := engine.NumberedDeal(s).MarshalJSON()
		m[string(js)] = s
	}
	return m
}

func rulesOf(draw, passes int, f2t bool) engine.Rules {
	r := engine.DefaultRules()
	r.Draw, r.Passes, r.FoundationToTableau = draw, passes, f2t
	return r
}

func TestTakeEmptyDoesNotBlock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		block := make(chan struct{})
		p := New(t.Context(), Config{
			Seeds: func() uint64 { return 1 },
			Solve: func(engine.Deal, engine.Rules, solver.Budget) solver.Result {
				<-block // a solve that never ends while the test runs
				return solver.Result{}
			},
		})
		r := engine.DefaultRules()
		if seed, ok := p.Take(r); ok {
			t.Fatalf("Take on an empty pool = %d, true; want false", seed)
		}
		synctest.Wait() // the worker is now stuck in its solve
		if seed, ok := p.Take(r); ok {
			t.Fatalf("Take during a solve = %d, true; want false", seed)
		}
		if st := p.Stats()[KeyOf(r)]; st.Misses != 2 {
			t.Errorf("Misses = %d, want 2", st.Misses)
		}
		close(block)
		p.Close()
	})
}

func TestFillTakeRefill(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		seeds, calls := counter(1)
		a, b := rulesOf(3, 0, true), rulesOf(1, 3, false)
		// Every Take wakes the worker, which runs beside the test: gate
		// holds its solves while the test empties a store.
		var gate sync.Mutex
		solve := fakeSolve(layouts(1, 200))
		p := New(t.Context(), Config{
			Rules: []engine.Rules{a, b},
			Size:  3,
			Seeds: seeds,
			Solve: func(d engine.Deal, r engine.Rules, b solver.Budget) solver.Result {
				gate.Lock()
				defer gate.Unlock()
				return solve(d, r, b)
			},
		})
		defer p.Close()
		synctest.Wait() // every store full, the worker asleep
		for _, r := range []engine.Rules{a, b} {
			if n := p.Len(r); n != 3 {
				t.Errorf("Len(%v) = %d, want 3", KeyOf(r), n)
			}
		}
		// One worker fills the shortest store first, a then b in turn:
		// winnable seeds 3, 6, 9, … alternate between them.
		var got []uint64
		gate.Lock()
		for range 3 {
			s, ok := p.Take(a)
			if !ok {
				t.Error("Take(a) found nothing in a full store")
				break // the gate must open for Close to return
			}
			got = append(got, s)
		}
		if want := []uint64{3, 9, 15}; !slices.Equal(got, want) {
			t.Errorf("seeds for a = %v, want %v", got, want)
		}
		if _, ok := p.Take(a); ok {
			t.Error("Take(a) succeeded on an emptied store")
		}
		before := calls()
		gate.Unlock()
		synctest.Wait()
		if n := p.Len(a); n != 3 {
			t.Errorf("after refill Len(a) = %d, want 3", n)
		}
		if n := p.Len(b); n != 3 {
			t.Errorf("Len(b) = %d, want 3 (untouched)", n)
		}
		if calls() == before {
			t.Error("no seeds drawn for the refill")
		}
		st := p.Stats()[KeyOf(a)]
		if st.Taken != 3 || st.Misses != 1 || st.Kept != 3 || st.Winnable != 6 || st.Solved != st.Winnable+st.Discarded {
			t.Errorf("stats of a = %+v", st)
		}
	})
}

func TestSharedStoreAndInvalidRules(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		seeds, _ := counter(1)
		r := rulesOf(3, 0, true)
		p := New(t.Context(), Config{Rules: []engine.Rules{r}, Size: 2, Seeds: seeds, Solve: fakeSolve(layouts(1, 100))})
		defer p.Close()
		synctest.Wait()
		// Undo and scoring make no difference to the deals.
		other := r
		other.Undo, other.Scoring = engine.UndoNoReveal, engine.ScoringVegas
		if s, ok := p.Take(other); !ok || s != 3 {
			t.Errorf("Take(same rules, other undo and scoring) = %d, %v; want 3, true", s, ok)
		}
		if _, ok := p.Take(engine.Rules{Draw: 2}); ok {
			t.Error("Take(invalid rules) succeeded")
		}
		if len(p.Stats()) != 1 {
			t.Errorf("invalid rules were added: %v", p.Stats())
		}
	})
}

func TestLearnsRulesFromTake(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		seeds, calls := counter(1)
		p := New(t.Context(), Config{Size: 2, Seeds: seeds, Solve: fakeSolve(layouts(1, 100))})
		defer p.Close()
		synctest.Wait()
		if calls() != 0 {
			t.Fatalf("a pool with no rule sets drew %d seeds", calls())
		}
		r := rulesOf(1, 1, false)
		if _, ok := p.Take(r); ok {
			t.Fatal("first Take of new rules succeeded")
		}
		synctest.Wait()
		if n := p.Len(r); n != 2 {
			t.Errorf("Len = %d after the first Take, want 2", n)
		}
	})
}

func TestCloseStopsWorkers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		seeds, calls := counter(1)
		ctx, cancel := context.WithCancel(t.Context())
		r := engine.DefaultRules()
		p := New(ctx, Config{Rules: []engine.Rules{r}, Size: 2, Workers: 3, Seeds: seeds, Solve: fakeSolve(layouts(1, 100))})
		synctest.Wait()
		cancel() // the context stops the workers as Close does
		synctest.Wait()
		n := calls()
		p.Take(r)
		p.Take(r)
		synctest.Wait()
		if calls() != n {
			t.Errorf("workers drew %d seeds after the context ended", calls()-n)
		}
		p.Close() // and Close after that returns at once
		if s, ok := p.Take(r); ok {
			t.Errorf("Take after emptying = %d", s)
		}
	})
}

// TestRealSolver fills a small pool with the real solver and checks each
// deal handed out by replaying a solution to a win.
func TestRealSolver(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		seeds, _ := counter(1)
		r := rulesOf(1, 0, true)
		p := New(t.Context(), Config{Rules: []engine.Rules{r}, Size: 3, Seeds: seeds, Budget: solver.Budget{Nodes: 50_000}})
		defer p.Close()
		synctest.Wait()
		for range 3 {
			seed, ok := p.Take(r)
			if !ok {
				t.Fatal("pool not filled")
			}
			d := engine.NumberedDeal(seed)
			res := solver.Solve(d, r, solver.Budget{Nodes: 50_000})
			if res.Verdict != solver.Winnable {
				t.Fatalf("deal %d: %v", seed, res.Verdict)
			}
			g, _ := engine.NewGame(d, r)
			for _, m := range res.Moves {
				if _, err := g.Apply(m); err != nil {
					t.Fatalf("deal %d: %v: %v", seed, m, err)
				}
			}
			if g.Status() != engine.Won {
				t.Fatalf("deal %d: %v after the solution", seed, g.Status())
			}
		}
	})
}

func TestRandomSeedVaries(t *testing.T) {
	a, b := randomSeed(), randomSeed()
	if a == b {
		t.Errorf("two random seeds are equal: %d", a)
	}
}

// TestOnlyGamesTheSolverPlays: rules of a game the solver does not play
// are never kept, from the Config or from Take, and nothing is solved for
// them; the games' keys differ.
func TestOnlyGamesTheSolverPlays(t *testing.T) {
	var others []engine.Rules
	for v := range engine.Variant(engine.NumVariants) {
		if !solver.Supports(v) {
			others = append(others, engine.DefaultRulesFor(v))
		}
	}
	if len(others) == 0 {
		t.Skip("the solver plays every game")
	}
	synctest.Test(t, func(t *testing.T) {
		var solved atomic.Int64
		tp := others[0]
		p := New(t.Context(), Config{
			Rules: others,
			Seeds: func() uint64 { return 3 },
			Solve: func(engine.Deal, engine.Rules, solver.Budget) solver.Result {
				solved.Add(1)
				return solver.Result{Verdict: solver.Winnable}
			},
		})
		defer p.Close()
		if _, ok := p.Take(tp); ok {
			t.Fatalf("Take handed out a deal of %v", tp.Game)
		}
		synctest.Wait()
		if n := solved.Load(); n != 0 || len(p.Stats()) != 0 {
			t.Fatalf("%d solves, rule sets %v; want none", n, p.Stats())
		}
		k, d := engine.DefaultRules(), engine.DefaultRulesFor(engine.DoubleKlondike)
		if KeyOf(k) == KeyOf(d) || KeyOf(d).Game != engine.DoubleKlondike || KeyOf(d).rules().Game != engine.DoubleKlondike {
			t.Errorf("keys of Klondike %+v and Double Klondike %+v", KeyOf(k), KeyOf(d))
		}
	})
}

// TestGamesKeptApart: each game the solver plays has its own store, filled
// by solving that game's numbered deals under its rules.
func TestGamesKeptApart(t *testing.T) {
	var games []engine.Variant
	for v := range engine.Variant(engine.NumVariants) {
		if solver.Supports(v) {
			games = append(games, v)
		}
	}
	if len(games) < 2 {
		t.Skip("the solver plays one game")
	}
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		wrong := 0
		p := New(t.Context(), Config{
			Size:  2,
			Seeds: func() uint64 { return 5 },
			Solve: func(d engine.Deal, r engine.Rules, b solver.Budget) solver.Result {
				mu.Lock()
				defer mu.Unlock()
				got, _ := d.MarshalJSON()
				want, _ := engine.NumberedDealFor(r.Game, 5).MarshalJSON()
				if string(got) != string(want) {
					wrong++
				}
				return solver.Result{Verdict: solver.Winnable}
			},
		})
		defer p.Close()
		for _, v := range games {
			p.Take(engine.DefaultRulesFor(v)) // learns the rule set
		}
		synctest.Wait()
		stats := p.Stats()
		for _, v := range games {
			r := engine.DefaultRulesFor(v)
			if st := stats[KeyOf(r)]; st.Solved != 2 || st.Kept != 2 {
				t.Errorf("%v: %+v, want 2 solved and kept", v, st)
			}
			if seed, ok := p.Take(r); !ok || seed != 5 {
				t.Errorf("Take(%v) = %d, %v; want deal 5", v, seed, ok)
			}
		}
		mu.Lock()
		defer mu.Unlock()
		if wrong != 0 {
			t.Errorf("%d solves were of another game's deal", wrong)
		}
	})
}
