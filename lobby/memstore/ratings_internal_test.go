package memstore

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"klondike/lobby/rating"
)

// TestRankTreeDelete checks the tree against a sorted slice through
// inserts and deletes in a random order, and that it stays balanced.
func TestRankTreeDelete(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	var tr rankTree
	var want []string
	for i := range 6000 {
		k := fmt.Sprintf("k%05d", rnd.IntN(1500))
		j, in := slices.BinarySearch(want, k)
		if rnd.IntN(2) == 0 {
			if got := tr.Delete(k); got != in {
				t.Fatalf("delete %d of %q = %v; want %v", i, k, got, in)
			}
			if in {
				want = slices.Delete(want, j, j+1)
			}
		} else if tr.Insert(k) && !in {
			want = slices.Insert(want, j, k)
		}
		if tr.Len() != len(want) {
			t.Fatalf("after %d steps Len = %d, want %d", i, tr.Len(), len(want))
		}
	}
	checkNode(t, tr.root)
	if h, n := tr.root.h(), len(want); float64(h) > 1.45*math.Log2(float64(n+2)) {
		t.Fatalf("height %d for %d keys", h, n)
	}
	if got := tr.Range(0, len(want)); !slices.Equal(got, want) {
		t.Fatalf("Range = %q; want %q", got, want)
	}
	for _, k := range want {
		tr.Delete(k)
	}
	if tr.Len() != 0 || tr.root != nil {
		t.Fatalf("a tree emptied by deletes holds %d keys", tr.Len())
	}
}

// TestLadderKeyOrder: ladder keys sort by rating descending, then by player
// id, across signs and magnitudes; lapse keys by time and back.
func TestLadderKeyOrder(t *testing.T) {
	ratings := []float64{3000.5, 1500.25, 1500.25, 1500, 12, 0, math.Copysign(0, -1), -7, -1e9}
	ids := []string{"a", "b", "c", "a", "z", "m", "n", "a", "a"}
	var keys []string
	for i, r := range ratings {
		keys = append(keys, ladderKey(r, ids[i]))
	}
	// 0 and -0 are one rating: ordered by id.
	if !slices.IsSorted(keys) {
		t.Fatalf("ladder keys out of order: %q", keys)
	}
	for _, f := range []float64{-1e300, -3.5, 0, 1, 1.7e15, math.Inf(1)} {
		if got := fromSortable(sortable(f)); got != f {
			t.Errorf("fromSortable(sortable(%v)) = %v", f, got)
		}
	}
	if lapseKey(1e15, "z") >= lapseKey(1e15+1, "a") || lapseKey(1e15, "a") >= lapseKey(math.Inf(1), "a") {
		t.Error("lapse keys do not sort by time first")
	}
}

// TestLapseMicros: the time a rating lapses is when AsOf's deviation
// reaches rating.ProvisionalRD.
func TestLapseMicros(t *testing.T) {
	at := time.Date(2031, 3, 14, 0, 0, 0, 0, time.UTC)
	for _, r := range []rating.Rating{
		{Rating: 1700, Deviation: 50, Volatility: 0.06, Rounds: 30, At: at},
		{Rating: 1400, Deviation: 109, Volatility: 0.09, Rounds: 12, At: at},
		{Rating: 1500, Deviation: 45, Volatility: 0.03, Rounds: 300, At: at},
	} {
		lapse := time.UnixMicro(int64(lapseMicros(r)))
		if d := r.AsOf(lapse.Add(-time.Second)).Deviation; d > rating.ProvisionalRD {
			t.Errorf("%+v: deviation %v a second before its lapse at %v", r, d, lapse)
		}
		if d := r.AsOf(lapse.Add(time.Second)).Deviation; d <= rating.ProvisionalRD {
			t.Errorf("%+v: deviation %v a second after its lapse at %v", r, d, lapse)
		}
	}
	for _, r := range []rating.Rating{{Deviation: 50, Volatility: 0.06}, {Deviation: 50, Volatility: 0, At: at}} {
		if got := lapseMicros(r); !math.IsInf(got, 1) {
			t.Errorf("lapseMicros(%+v) = %v, want never", r, got)
		}
	}
}
