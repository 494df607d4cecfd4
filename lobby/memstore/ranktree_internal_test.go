package memstore

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestRankTree checks the tree against a sorted slice through inserts in
// a random order with repeats, and that it stays balanced.
func TestRankTree(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	var tr rankTree
	var want []string
	for i := range 3000 {
		k := fmt.Sprintf("k%05d", rnd.IntN(2000))
		_, dup := slices.BinarySearch(want, k)
		if got := tr.Insert(k); got == dup {
			t.Fatalf("insert %d of %q = %v; want %v", i, k, got, !dup)
		}
		if !dup {
			j, _ := slices.BinarySearch(want, k)
			want = slices.Insert(want, j, k)
		}
		if tr.Len() != len(want) {
			t.Fatalf("Len = %d, want %d", tr.Len(), len(want))
		}
	}
	// An AVL tree of n nodes is at most 1.45 log2(n+2) high.
	if h, n := tr.root.h(), len(want); float64(h) > 1.45*math.Log2(float64(n+2)) {
		t.Fatalf("height %d for %d keys", h, n)
	}
	checkNode(t, tr.root)
	for i, k := range want {
		if r, ok := tr.Rank(k); !ok || r != i {
			t.Fatalf("Rank(%q) = %d, %v; want %d", k, r, ok, i)
		}
	}
	if _, ok := tr.Rank("absent"); ok {
		t.Fatal("Rank of an absent key is ok")
	}
	for _, c := range [][2]int{{0, 10}, {0, len(want)}, {5, 7}, {len(want) - 3, 10}, {len(want), 5}, {-4, 3}, {3, 0}, {2, -1}} {
		got := tr.Range(c[0], c[1])
		lo := min(max(c[0], 0), len(want))
		hi := min(lo+max(c[1], 0), len(want))
		if !slices.Equal(got, want[lo:hi]) {
			t.Fatalf("Range(%d, %d) = %q; want %q", c[0], c[1], got, want[lo:hi])
		}
	}
	var empty rankTree
	if empty.Len() != 0 || empty.Range(0, 5) != nil {
		t.Fatal("the zero tree is not empty")
	}
}

// checkNode checks the sizes, heights and balance of n's subtree.
func checkNode(t *testing.T, n *rankNode) {
	if n == nil {
		return
	}
	checkNode(t, n.left)
	checkNode(t, n.right)
	if n.size != 1+n.left.sz()+n.right.sz() || n.height != 1+max(n.left.h(), n.right.h()) {
		t.Fatalf("node %q: size %d, height %d", n.key, n.size, n.height)
	}
	if d := n.left.h() - n.right.h(); d < -1 || d > 1 {
		t.Fatalf("node %q out of balance by %d", n.key, d)
	}
}
