package solver

import (
	"math/rand/v2"
	"testing"
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
