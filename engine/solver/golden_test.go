package solver

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"klondike/engine"
)

// update rewrites the golden files from what the code computes now.
var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// goldenSearches is the file of TestGoldenSearches; goldenPouch that of
// TestGoldenPouchSearches.
const (
	goldenSearches = "testdata/searches.golden"
	goldenPouch    = "testdata/searches_pouch.golden"
)

// TestGoldenSearches solves the first deals of every variant on a node
// budget and compares verdict, node count and a hash of the line with
// testdata/searches.golden: a change that should leave the search as it
// is (a refactoring, a faster data structure) must leave them all alone.
// A change to the search itself shows here as the deals it changes;
// go test ./engine/solver -run TestGoldenSearches -update rewrites the
// file, for the diff to be reviewed.
func TestGoldenSearches(t *testing.T) {
	t.Parallel()
	checkGolden(t, goldenSearches, variants())
}

// TestGoldenPouchSearches is TestGoldenSearches for Thumb and Pouch, in a
// file of its own (testdata/searches_pouch.golden), so that a change made
// for one game shows whether it moved the other's searches.
func TestGoldenPouchSearches(t *testing.T) {
	t.Parallel()
	checkGolden(t, goldenPouch, pouchVariants())
}

// checkGolden solves deals 1..8 of each of the rules rs on 20,000 nodes
// and compares verdict, node count and a hash of the line with the file
// (or, with -update, writes them there).
func checkGolden(t *testing.T, file string, rs []engine.Rules) {
	var b strings.Builder
	for _, r := range rs {
		for n := uint64(1); n <= 8; n++ {
			res := Solve(engine.NumberedDealFor(r.Game, n), r, Budget{Nodes: 20_000})
			line := fmt.Sprint(res.Moves)
			fmt.Fprintf(&b, "%s deal %d: %v %d nodes, %d moves %x\n", variantName(r), n,
				res.Verdict, res.Nodes, len(res.Moves), sha256.Sum256([]byte(line)))
		}
	}
	got := b.String()
	if *update {
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if got == string(want) {
		return
	}
	gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
	for i := range max(len(gl), len(wl)) {
		var g, w string
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w {
			t.Errorf("got  %s\nwant %s", g, w)
		}
	}
}
