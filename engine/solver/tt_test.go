package solver

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"klondike/engine"
)

// TestTableGrowKeepsEntries fills a table past several doublings with keys
// in groups that differ in a few bits (as the variants of one position do)
// and checks that every key keeps its bits, that absent keys stay absent,
// and that the table stops at its bound.
func TestTableGrowKeepsEntries(t *testing.T) {
	var tt table
	tt.reset(1 << 18)
	rng := rand.New(rand.NewPCG(1, 2))
	type rec struct {
		k uint64
		b uint32
	}
	var in []rec
	for range 20_000 {
		base := rng.Uint64()
		for v := range uint64(1 + rng.IntN(5)) {
			k := base ^ v<<40
			b := uint32(1) << rng.IntN(26)
			added, full := tt.visit(k, b, b)
			if full {
				t.Fatal("full")
			}
			if !added {
				t.Fatalf("key %x not added", k)
			}
			in = append(in, rec{k, b})
		}
	}
	if len(tt.keys) <= minSlots {
		t.Fatalf("table did not grow: %d slots", len(tt.keys))
	}
	for _, r := range in {
		if !tt.seen(r.k, r.b) {
			t.Fatalf("key %x lost its bit %x", r.k, r.b)
		}
		if tt.seen(r.k, ^r.b&allWaste) {
			t.Fatalf("key %x has a bit it was not given", r.k)
		}
		if added, _ := tt.visit(r.k, r.b, r.b); added {
			t.Fatalf("key %x added twice", r.k)
		}
		if tt.seen(r.k^1<<63, allWaste) {
			t.Fatalf("key %x found though absent", r.k^1<<63)
		}
	}
	if tt.count != len(in) {
		t.Fatalf("count %d, want %d", tt.count, len(in))
	}
	// Bits accumulate, and dom decides.
	k := uint64(0xDEADBEEF12345678)
	tt.visit(k, 1<<3, 1<<3)
	if added, _ := tt.visit(k, 1<<5, 1<<5); !added {
		t.Fatal("second waste size not added")
	}
	if added, _ := tt.visit(k, 1<<7, 1<<7|1<<3); added {
		t.Fatal("dominated waste size added")
	}
	// The table stops at its bound.
	var small table
	small.reset(minSlots)
	for i := range uint64(minSlots) {
		if _, full := small.visit(i<<32|i+1, 1, 1); full {
			if int(i) != minSlots/10*7 {
				t.Fatalf("full after %d keys, want %d", i, minSlots/10*7)
			}
			return
		}
	}
	t.Fatal("table never full")
}

// TestArrayCache checks the cache of tables' arrays: an array put back is
// handed out again for the same size only, cleared; no more than its bytes
// are kept; arrays kept too long are let go; and a released table gives its
// arrays back and can be reset and used again.
func TestArrayCache(t *testing.T) {
	c := arrayCache{max: arraysBytes(1<<10) + arraysBytes(1<<11), maxSlots: 1 << 11, idle: time.Hour}
	k, b := c.get(1 << 10)
	if len(k) != 1<<10 || len(b) != 1<<10 {
		t.Fatalf("get(1024): %d keys, %d bits", len(k), len(b))
	}
	k[5], b[7] = 42, 9
	c.put(k, b)
	if k2, _ := c.get(1 << 11); &k2[0] == &k[0] {
		t.Fatal("an array of 1024 slots handed out for 2048")
	}
	k3, b3 := c.get(1 << 10)
	if &k3[0] != &k[0] || &b3[0] != &b[0] {
		t.Fatal("the array put back was not handed out again")
	}
	if k3[5] != 0 || b3[7] != 0 {
		t.Fatalf("a reused array is not cleared: key %d, bits %d", k3[5], b3[7])
	}
	// Room for one of each size: a second 2048 does not fit.
	c.put(k3, b3)
	c.put(make([]uint64, 1<<11), make([]uint32, 1<<11))
	c.put(make([]uint64, 1<<11), make([]uint32, 1<<11))
	if c.bytes != c.max || len(c.free[11]) != 1 {
		t.Fatalf("kept %d bytes (%d arrays of 2048), want %d (1)", c.bytes, len(c.free[11]), c.max)
	}
	// Larger than maxSlots: never kept, even with room.
	c.max *= 4
	c.put(make([]uint64, 1<<12), make([]uint32, 1<<12))
	if len(c.free[12]) != 0 {
		t.Fatal("an array over maxSlots was kept")
	}
	c.mu.Lock()
	c.trimBefore(time.Now().Add(time.Minute))
	c.mu.Unlock()
	if c.bytes != 0 || len(c.free[10]) != 0 || len(c.free[11]) != 0 {
		t.Fatalf("after the trim: %d bytes kept", c.bytes)
	}
	c.trim.Stop()

	var tt table
	tt.reset(1 << 16)
	for i := range uint64(50_000) {
		tt.visit(i*0x9E3779B97F4A7C15+1, 1, 1)
	}
	tt.release()
	if tt.keys != nil || tt.count != 0 {
		t.Fatal("a released table keeps its arrays")
	}
	tt.reset(1 << 16)
	if tt.seen(0x9E3779B97F4A7C15+1, 1) {
		t.Fatal("a table reset after release remembers a key")
	}
	if added, _ := tt.visit(7, 1, 1); !added || !tt.seen(7, 1) {
		t.Fatal("a table reset after release does not record")
	}
}

// TestVariantsDistinct checks what the table's layout relies on (see
// variantMask): the variants of one position, every recycle count with
// every obligation (none included), change only the low 32 bits of its
// key, and no two of them change them alike, so that they never share a key.
func TestVariantsDistinct(t *testing.T) {
	var obs []oblig
	obs = append(obs, oblig{})
	for i := range uint8(nPiles) {
		for j := range uint8(nPiles) {
			obs = append(obs, oblig{kind: obPartial, i: i, j: j}, oblig{kind: obEmpty, i: i, j: j})
		}
	}
	for c := range uint8(nCards) {
		for j := range uint8(nPiles) {
			obs = append(obs, oblig{kind: obOnto, j: j, c: c})
		}
		for su := range uint8(4) {
			obs = append(obs, oblig{kind: obOnto, i: su, j: 0, c: c, f2t: true})
		}
	}
	seen := map[uint64]string{}
	for r := range len(zRec) {
		for _, o := range obs {
			v := zRec[r] ^ o.hash()
			if v&^variantMask != 0 {
				t.Fatalf("recycles %d, obligation %+v: changes the high bits (%#x)", r, o, v)
			}
			// obOnto is keyed by its card, not its pile: those with the
			// same card are one variant.
			name := fmt.Sprintf("recycles %d, obligation %d/%d/%d/%v", r, o.kind, o.i, o.c, o.f2t)
			if o.kind != obOnto {
				name = fmt.Sprintf("recycles %d, obligation %d/%d/%d", r, o.kind, o.i, o.j)
			}
			if prev, ok := seen[v]; ok && prev != name {
				t.Fatalf("%s and %s change the key alike (%#x)", prev, name, v)
			}
			seen[v] = name
		}
	}
}

// TestHashAfter checks hashAfter, which the search uses to prefetch the
// table slots of a position's children, against do: for every move of
// positions along random walks of the solver's own state, in every
// variant, with and without twin stacks, the hash it predicts is the one
// do leaves.
func TestHashAfter(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	checked := 0
	for _, r := range allVariants() {
		for _, noTwins := range []bool{false, true} {
			for n := 1; n <= 25; n++ {
				g := randomWalk(rng, engine.NumberedDeal(uint64(n)), r, rng.IntN(30))
				if g == nil || g.Status() != engine.Playing {
					continue
				}
				x := &search{opts: searchOpts{noTwins: noTwins}}
				if err := x.load(g.String(), r); err != nil {
					t.Fatal(err)
				}
				for range 150 {
					ms := x.gen(nil, oblig{})
					if len(ms) == 0 {
						break
					}
					for _, m := range ms {
						want := x.s.hashAfter(m)
						a := x.s.do(m)
						if x.s.h != want {
							t.Fatalf("%s deal %d: move %+v: hashAfter %#x, do gives %#x", variantName(r), n, m, want, x.s.h)
						}
						x.s.undo(&a)
						checked++
					}
					x.s.do(ms[rng.IntN(len(ms))])
				}
			}
		}
	}
	if checked < 10_000 {
		t.Fatalf("only %d moves checked", checked)
	}
}

// TestTalonSet checks talonSet's shortcut for draw 1 with a recycle left
// (every card off the tableau and the foundations) against the cards at
// the waste sizes talonPositions lists, along random walks of the
// solver's state in every variant.
func TestTalonSet(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 2))
	checked := 0
	for _, r := range variants() {
		for n := 1; n <= 25; n++ {
			g := randomWalk(rng, engine.NumberedDeal(uint64(n)), r, rng.IntN(30))
			if g == nil || g.Status() != engine.Playing {
				continue
			}
			x := &search{}
			if err := x.load(g.String(), r); err != nil {
				t.Fatal(err)
			}
			for range 150 {
				tps := x.talonPositions()
				var want uint64
				for _, tp := range tps {
					want |= 1 << x.s.t[tp.at-1]
				}
				if got := x.talonSet(tps); got != want {
					t.Fatalf("%s deal %d: talonSet %#x, the listed waste sizes' cards %#x", variantName(r), n, got, want)
				}
				checked++
				ms := x.gen(nil, oblig{})
				if len(ms) == 0 {
					break
				}
				x.s.do(ms[rng.IntN(len(ms))])
			}
		}
	}
	if checked < 5_000 {
		t.Fatalf("only %d positions checked", checked)
	}
}
