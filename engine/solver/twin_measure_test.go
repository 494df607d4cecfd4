package solver

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"klondike/engine"
)

// TestTwinCompare solves numbered deals with and without the twin-stack
// reduction, one after the other per deal, and writes one line a deal:
// number, then verdict, nodes and milliseconds with the reduction, then
// without (KLONDIKE_TWIN_SIDE=twins or plain: one side only;
// KLONDIKE_TWIN_DEALS="12 36": those deals only;
// KLONDIKE_TWIN_NOF2T=1: no foundation-to-tableau moves). A deal winnable one way and unwinnable the other is an error.
// Too long for the default run:
//
//	KLONDIKE_TWIN_COMPARE=1 KLONDIKE_TWIN_FROM=1 KLONDIKE_TWIN_COUNT=300 \
//	KLONDIKE_TWIN_DRAW=3 KLONDIKE_TWIN_PASSES=0 KLONDIKE_TWIN_NODES=2000000 \
//	KLONDIKE_TWIN_OUT=twin.txt nice -n 19 go test ./engine/solver -run TestTwinCompare -v -timeout 0
func TestTwinCompare(t *testing.T) {
	if os.Getenv("KLONDIKE_TWIN_COMPARE") == "" {
		t.Skip("set KLONDIKE_TWIN_COMPARE=1 to run")
	}
	num := func(name string, def int) int {
		if s := os.Getenv(name); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil {
				t.Fatalf("%s=%q: %v", name, s, err)
			}
			return n
		}
		return def
	}
	from, count := num("KLONDIKE_TWIN_FROM", 1), num("KLONDIKE_TWIN_COUNT", 300)
	r := engine.DefaultRules()
	r.Draw, r.Passes = num("KLONDIKE_TWIN_DRAW", 3), num("KLONDIKE_TWIN_PASSES", 0)
	r.FoundationToTableau = os.Getenv("KLONDIKE_TWIN_NOF2T") == ""
	b := Budget{Nodes: int64(num("KLONDIKE_TWIN_NODES", 2_000_000))}
	out := os.Stdout
	if p := os.Getenv("KLONDIKE_TWIN_OUT"); p != "" {
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		out = f
	}
	side := os.Getenv("KLONDIKE_TWIN_SIDE") // "twins", "plain" or both
	var list []int
	if d := os.Getenv("KLONDIKE_TWIN_DEALS"); d != "" {
		for _, f := range strings.Fields(d) {
			n, err := strconv.Atoi(f)
			if err != nil {
				t.Fatal(err)
			}
			list = append(list, n)
		}
	} else {
		for n := from; n < from+count; n++ {
			list = append(list, n)
		}
	}
	for _, n := range list {
		g, err := engine.NewGame(engine.NumberedDeal(uint64(n)), r)
		if err != nil {
			t.Fatal(err)
		}
		var tw, pl Result
		if side != "plain" {
			tw = solveWith(g, b, nil)
		}
		if side != "twins" {
			pl = solveWith(g, b, func(x *search) { x.noTwins = true })
		}
		fmt.Fprintf(out, "%d %v %d %d %v %d %d\n", n, tw.Verdict, tw.Nodes, tw.Elapsed.Milliseconds(),
			pl.Verdict, pl.Nodes, pl.Elapsed.Milliseconds())
		if tw.Verdict != pl.Verdict && tw.Verdict != Unknown && pl.Verdict != Unknown {
			t.Errorf("deal %d: %v with twin stacks, %v without", n, tw.Verdict, pl.Verdict)
		}
	}
}
