package client

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"

	"klondike/engine"
)

// viewsOfPlay returns the JSON of every position of random games of the
// given games (legal moves, a fixed seed) under several rules, with the view
// each stands for; the last of each game resigned, timed out, or as it
// ended.
func viewsOfPlay(t testing.TB, games ...engine.Variant) (texts [][]byte, views []engine.View) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, v := range games {
		for _, rc := range []struct{ draw, passes int }{{3, 0}, {1, 0}, {1, 3}, {3, 1}} {
			r := engine.DefaultRulesFor(v)
			r.Draw, r.Passes = rc.draw, rc.passes
			if v == engine.Whitehead {
				r.Draw, r.Passes = 1, 1
			}
			deals := uint64(12)
			if v != engine.Klondike {
				deals = 3 // the other games add their own fields only
			}
			for deal := uint64(1); deal <= deals; deal++ {
				g, err := engine.NewGame(engine.NumberedDealFor(v, deal), r)
				if err != nil {
					t.Fatal(err)
				}
				var moves []engine.Move
				for step := 0; step < 300 && g.Status() == engine.Playing; step++ {
					el := int64(step) * 997
					texts = append(texts, marshalView(t, g.View(el)))
					views = append(views, g.View(el))
					moves = g.LegalMoves(moves[:0])
					if len(moves) == 0 {
						break
					}
					if _, err := g.Apply(moves[rng.IntN(len(moves))]); err != nil {
						t.Fatal(err)
					}
				}
				switch deal % 3 {
				case 0:
					_ = g.Resign()
				case 1:
					g.TimeOut()
				}
				texts = append(texts, marshalView(t, g.View(123456789012)))
				views = append(views, g.View(123456789012))
			}
		}
	}
	return texts, views
}

// marshalView is the view's JSON as encoding/json writes it, which is what
// the server sends.
func marshalView(t testing.TB, v engine.View) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestParseView: parseView reads every view encoding/json writes as
// encoding/json reads it (and as the game's View is); it takes nothing but
// those bytes; and whatever it accepts of a damaged view, encoding/json
// reads the same way.
func TestParseView(t *testing.T) {
	texts, views := viewsOfPlay(t, engine.Klondike, engine.ThumbAndPouch, engine.Whitehead, engine.DoubleKlondike)
	statuses := map[engine.Status]bool{}
	for k, b := range texts {
		var fast, slow engine.View
		n, ok := parseView(b, &fast)
		if !ok || n != len(b) {
			t.Fatalf("view %d: ok %v after %d of %d bytes: %s", k, ok, n, len(b), b)
		}
		if err := json.Unmarshal(b, &slow); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(fast, slow) || !reflect.DeepEqual(fast, views[k]) {
			t.Fatalf("view %d: %s\nfast %+v\njson %+v\nview %+v", k, b, fast, slow, views[k])
		}
		statuses[fast.Status] = true
		// More after the view is left to the caller.
		if n, ok := parseView(append(append([]byte{}, b...), `,"x":1}`...), &fast); !ok || n != len(b) {
			t.Fatalf("view %d with more after it: ok %v, %d bytes", k, ok, n)
		}
	}
	if len(statuses) < 4 {
		t.Errorf("the games reached only the statuses %v", statuses)
	}
	if len(texts) < 1000 {
		t.Errorf("only %d views", len(texts))
	}

	// Damaged views: cut anywhere, or one byte changed or spaced out.
	rng := rand.New(rand.NewPCG(3, 4))
	accepted := 0
	for k, b := range texts {
		if k%40 != 0 {
			continue
		}
		var v engine.View
		for cut := range len(b) {
			if _, ok := parseView(b[:cut], &v); ok {
				t.Fatalf("view %d cut at %d accepted: %s", k, cut, b[:cut])
			}
		}
		for range 200 {
			d := damage(b, rng)
			var fast, slow engine.View
			n, ok := parseView(d, &fast)
			if !ok || n != len(d) {
				continue
			}
			accepted++
			if err := json.Unmarshal(d, &slow); err != nil {
				t.Fatalf("accepted %s, which encoding/json refuses: %v", d, err)
			}
			if !reflect.DeepEqual(fast, slow) {
				t.Fatalf("%s\nfast %+v\njson %+v", d, fast, slow)
			}
		}
	}
	if accepted == 0 {
		t.Error("no damaged view was still a view: the check above checked nothing")
	}
}

func BenchmarkParseView(b *testing.B) {
	texts, _ := viewsOfPlay(b, engine.Klondike)
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		var v engine.View
		for i := range b.N {
			if _, ok := parseView(texts[i%len(texts)], &v); !ok {
				b.Fatal("refused")
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for i := range b.N {
			var v engine.View
			if err := json.Unmarshal(texts[i%len(texts)], &v); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// damage returns a copy of b with one random byte replaced, inserted
// (a space) or removed: what the fast parsers' tests feed them beside
// encoding/json.
func damage(b []byte, rng *rand.Rand) []byte {
	d := append([]byte{}, b...)
	i := rng.IntN(len(d))
	switch rng.IntN(3) {
	case 0:
		d[i] = "0123456789-\"[],:{}ACDHSTJQKnul \\xe"[rng.IntN(34)]
	case 1:
		d = append(d[:i], append([]byte{' '}, d[i:]...)...)
	case 2:
		d = append(d[:i], d[i+1:]...)
	}
	return d
}
