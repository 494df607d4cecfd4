package main

import (
	"errors"
	"fmt"
	"io"

	"klondike/engine/solver"
)

// errNoSolverLab is the error of --compare-twins in a klondike built
// without the solver's measurement hooks.
var errNoSolverLab = errors.New("--compare-twins needs the solver's measurement hooks, which this klondike was built without: build it with go build -tags solverlab ./cmd/klondike")

// printComparison prints the summaries of the solver with the twin-stack
// reduction (with) and without it (without), side by side, and what the
// deals both decided cost each; it returns exitFailure when a winning line
// did not replay or a deal is winnable one way and unwinnable the other.
func printComparison(w, stderr io.Writer, cmd string, d dealRange, with, without []dealResult) int {
	a, b := summarize(with), summarize(without)
	printHead(w, d)
	fmt.Fprintf(w, "%-11s %16s  %16s\n", "", "with twin stacks", "without")
	row := func(name string, x, y int) {
		fmt.Fprintf(w, "%-11s %7d %8s  %7d %8s\n", name, x, pct(x, a.deals), y, pct(y, b.deals))
	}
	row("winnable", a.win, b.win)
	row("unwinnable", a.lose, b.lose)
	row("unknown", a.unknown, b.unknown)
	fmt.Fprintf(w, "%-11s %16d  %16d\n", "nodes", a.nodes, b.nodes)
	fmt.Fprintf(w, "time per deal with twin stacks: %s\n", a.timesText())
	fmt.Fprintf(w, "time per deal without:          %s\n", b.timesText())
	var proofs, wins, disagree int
	var proofA, proofB, winA, winB int64
	for i := range with {
		x, y := with[i], without[i]
		switch {
		case x.verdict == solver.Unwinnable && y.verdict == solver.Unwinnable:
			proofs++
			proofA += x.nodes
			proofB += y.nodes
		case x.verdict == solver.Winnable && y.verdict == solver.Winnable:
			wins++
			winA += x.nodes
			winB += y.nodes
		case x.verdict != solver.Unknown && y.verdict != solver.Unknown:
			disagree++
			fmt.Fprintf(stderr, "%s: deal %d: %v with twin stacks, %v without: a solver bug\n", cmd, d.from+uint64(i), x.verdict, y.verdict)
		}
	}
	fmt.Fprintf(w, "proofs both made: %d, nodes %d with twin stacks, %d without\n", proofs, proofA, proofB)
	fmt.Fprintf(w, "wins both found:  %d, nodes %d with twin stacks, %d without\n", wins, winA, winB)
	fmt.Fprintf(w, "verdicts that disagree: %d\n", disagree)
	fmt.Fprintf(w, "winning lines replayed to a win: %d of %d with twin stacks, %d of %d without\n", a.replayed, a.win, b.replayed, b.win)
	status := exitOK
	if a.replayed != a.win || b.replayed != b.win {
		fmt.Fprintf(stderr, "%s: %d winning lines did not replay: a solver bug\n", cmd, a.win-a.replayed+b.win-b.replayed)
		status = exitFailure
	}
	if disagree > 0 {
		status = exitFailure
	}
	return status
}
