package fast

import (
	"encoding/json"
	"math/rand/v2"
	"testing"

	"klondike/engine"
)

// viewsOfPlay returns the views of random games of every variant, move
// after move, and some made by hand: empty lists, nil lists, no passes
// left.
func viewsOfPlay(tb testing.TB) []engine.View {
	tb.Helper()
	rng := rand.New(rand.NewPCG(5, 6))
	var views []engine.View
	for _, variant := range []engine.Variant{engine.Klondike, engine.ThumbAndPouch, engine.Whitehead, engine.DoubleKlondike} {
		for _, rules := range []engine.Rules{engine.DefaultRulesFor(variant), func() engine.Rules {
			r := engine.DefaultRulesFor(variant)
			r.Draw, r.Passes, r.Scoring = 1, 1, engine.ScoringVegas
			return r
		}()} {
			g, err := engine.NewGame(engine.NumberedDealFor(variant, rng.Uint64()), rules)
			if err != nil {
				tb.Fatal(err)
			}
			var reused engine.View
			for i := range 150 {
				views = append(views, g.View(int64(i)*977))
				g.ViewInto(&reused, int64(i))
				views = append(views, reused)
				ms := g.LegalMoves(nil)
				if len(ms) == 0 {
					break
				}
				if _, err := g.Apply(ms[rng.IntN(len(ms))]); err != nil {
					tb.Fatal(err)
				}
			}
		}
	}
	left := 0
	views = append(views, engine.View{}, engine.View{PassesLeft: &left, Waste: []engine.Card{}, FoundationBase: 12,
		Status: engine.Won, ElapsedMs: -1, Score: -52})
	return views
}

// TestAppendViewJSON holds AppendViewJSON to encoding/json, byte for byte.
func TestAppendViewJSON(t *testing.T) {
	var buf []byte
	for _, v := range viewsOfPlay(t) {
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		buf = AppendViewJSON(buf[:0], &v)
		if string(buf) != string(want) {
			t.Fatalf("AppendViewJSON:\n%s\nencoding/json:\n%s", buf, want)
		}
	}
	g, err := engine.NewGame(engine.NumberedDeal(3), engine.DefaultRules())
	if err != nil {
		t.Fatal(err)
	}
	v := g.View(5)
	if n := testing.AllocsPerRun(20, func() { buf = AppendViewJSON(buf[:0], &v) }); n != 0 {
		t.Errorf("AppendViewJSON with room makes %v allocations, want 0", n)
	}
}

func BenchmarkAppendViewJSON(b *testing.B) {
	g, err := engine.NewGame(engine.NumberedDeal(3), engine.DefaultRules())
	if err != nil {
		b.Fatal(err)
	}
	v := g.View(123456)
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendViewJSON(buf[:0], &v)
	}
}
