package solver

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"klondike/engine"
)

// benchDeals are the numbered deals the benchmarks solve, each with a node
// budget, so that one op is a fixed amount of work.
const (
	benchFirst  = 1
	benchDeals  = 20
	benchBudget = 50_000
)

// BenchmarkSolve solves deals 1..20 from their opening in draw 1 and in
// draw 3 (unlimited passes, foundation-to-tableau on), each with a budget of
// 50,000 nodes. One op is the 20 deals; nodes/s is the search's speed and
// ms/deal the mean time per deal.
func BenchmarkSolve(b *testing.B) {
	for _, draw := range []int{1, 3} {
		b.Run(fmt.Sprintf("draw%d", draw), func(b *testing.B) {
			r := engine.DefaultRules()
			r.Draw = draw
			deals := make([]engine.Deal, benchDeals)
			for i := range deals {
				deals[i] = engine.NumberedDeal(uint64(benchFirst + i))
			}
			var nodes int64
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				for _, d := range deals {
					nodes += Solve(d, r, Budget{Nodes: benchBudget}).Nodes
				}
			}
			sec := b.Elapsed().Seconds()
			b.ReportMetric(float64(nodes)/sec, "nodes/s")
			b.ReportMetric(1000*sec/float64(b.N*benchDeals), "ms/deal")
		})
	}
}

// BenchmarkSolveEasy solves one deal that a short search wins: the fixed
// cost of a solve (setting up, the table, the solution checked on the
// engine).
func BenchmarkSolveEasy(b *testing.B) {
	r := engine.DefaultRules()
	r.Draw = 1
	d := engine.NumberedDeal(1)
	if res := Solve(d, r, Budget{Nodes: 10_000}); res.Verdict != Winnable {
		b.Fatalf("deal 1 draw 1: %v", res.Verdict)
	}
	b.ReportAllocs()
	for b.Loop() {
		Solve(d, r, Budget{Nodes: 10_000})
	}
}

// BenchmarkHint asks for a hint in the opening of deal 1 in draw 3: what
// one press of a practice game's hint button costs when the deal is easy.
func BenchmarkHint(b *testing.B) {
	g, err := engine.NewGame(engine.NumberedDeal(1), engine.DefaultRules())
	if err != nil {
		b.Fatal(err)
	}
	if h := Hint(g, Budget{Nodes: 100_000}); h.Verdict != Winnable {
		b.Fatalf("deal 1 draw 3: %v", h.Verdict)
	}
	b.ReportAllocs()
	for b.Loop() {
		Hint(g, Budget{Nodes: 100_000})
	}
}

// BenchmarkGen generates the moves of positions part way through random
// games of every variant, as the search does at each node: one op is one
// position's list.
func BenchmarkGen(b *testing.B) {
	rng := rand.New(rand.NewPCG(4, 4))
	var xs []*search
	for _, r := range variants() {
		for n := 1; n <= 20; n++ {
			g := randomWalk(rng, engine.NumberedDeal(uint64(n)), r, rng.IntN(60))
			if g.Status() != engine.Playing {
				continue
			}
			x := &search{}
			if err := x.load(g.String(), r); err != nil {
				b.Fatal(err)
			}
			xs = append(xs, x)
		}
	}
	buf := make([]move, 0, 256)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		buf = xs[i].gen(buf[:0], oblig{})
		if i++; i == len(xs) {
			i = 0
		}
	}
}

// BenchmarkSolvePouch is BenchmarkSolve for Thumb and Pouch in its own
// rules (draw 1, one pass): deals 1..20 on 50,000 nodes each.
func BenchmarkSolvePouch(b *testing.B) {
	r := engine.DefaultRulesFor(engine.ThumbAndPouch)
	deals := make([]engine.Deal, benchDeals)
	for i := range deals {
		deals[i] = engine.NumberedDealFor(r.Game, uint64(benchFirst+i))
	}
	var nodes int64
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, d := range deals {
			nodes += Solve(d, r, Budget{Nodes: benchBudget}).Nodes
		}
	}
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(nodes)/sec, "nodes/s")
	b.ReportMetric(1000*sec/float64(b.N*benchDeals), "ms/deal")
}
