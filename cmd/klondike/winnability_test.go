package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"klondike/engine/solver"
)

func TestWinnabilitySmall(t *testing.T) {
	out := filepath.Join(t.TempDir(), "deals.txt")
	stdout, errOut, status := runCmd(t, "", "winnability", "--from", "1", "--count", "12", "--draw", "1",
		"--nodes", "100000", "--budget", "0", "--workers", "2", "--out", out)
	if status != 0 {
		t.Fatalf("exit %d, stderr %q", status, errOut)
	}
	if errOut != "" {
		t.Errorf("stderr %q: a progress bar on a stderr that is not a terminal", errOut)
	}
	for _, want := range []string{
		"deals 1..12 (12); draw 1, passes unlimited, foundation-to-tableau on\n",
		"budget 100000 nodes a deal; 2 worker(s)",
		"95% CI ", "(Wilson)", "unwinnable ", "unknown ", "time per deal: median ",
		"winning lines replayed to a win: ",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	ls := lines(string(data))
	if len(ls) != 12 {
		t.Fatalf("--out has %d lines, want 12:\n%s", len(ls), data)
	}
	seen := map[string]bool{}
	var win int
	for _, l := range ls {
		f := strings.Fields(l)
		if len(f) != 5 {
			t.Fatalf("--out line %q: want 5 fields", l)
		}
		seen[f[0]] = true
		if f[1] == "winnable" {
			win++
		}
	}
	if len(seen) != 12 || !seen["1"] || !seen["12"] {
		t.Errorf("--out deals %v, want 1..12 once each", seen)
	}
	if !strings.Contains(stdout, fmt.Sprintf("winning lines replayed to a win: %d of %d\n", win, win)) {
		t.Errorf("replayed count does not match the %d winnable deals:\n%s", win, stdout)
	}
}

// TestWinnabilityDeterministic: with a node budget the verdict counts are
// the same whatever the number of workers.
func TestWinnabilityDeterministic(t *testing.T) {
	counts := func(workers string) string {
		out, errOut, status := runCmd(t, "", "winnability", "--from", "20", "--count", "8", "--passes", "3",
			"--nodes", "50000", "--budget", "0", "--workers", workers)
		if status != 0 {
			t.Fatalf("exit %d, stderr %q", status, errOut)
		}
		var keep []string
		for _, l := range lines(out) {
			if strings.HasPrefix(l, "winnable") || strings.HasPrefix(l, "unwinnable") || strings.HasPrefix(l, "unknown") || strings.HasPrefix(l, "nodes ") {
				l, _, _ = strings.Cut(l, " (") // the nodes a second vary
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "\n")
	}
	if a, b := counts("1"), counts("3"); a != b {
		t.Errorf("1 worker:\n%s\n3 workers:\n%s", a, b)
	}
}

func TestWinnabilityBadUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"winnability"}, "give --count"},
		{[]string{"winnability", "--count", "0"}, "want at least 1"},
		{[]string{"winnability", "--count", "5", "--workers", "0"}, "--workers 0"},
		{[]string{"winnability", "--count", "5", "--seed", "3"}, "--from and --count"},
		{[]string{"winnability", "--count", "2", "--from", "18446744073709551615"}, "deal numbers end"},
		{[]string{"winnability", "--count", "5", "--passes", "2"}, "passes 2"},
		{[]string{"winnability", "--count", "5", "--nodes", "-1"}, "must not be negative"},
		{[]string{"winnability", "--count", "5", "extra"}, "unexpected arguments"},
		{[]string{"winnability", "--count", "5", "--all-rules", "--draw", "1"}, "leave out --draw"},
		{[]string{"winnability", "--count", "5", "--all-rules", "--no-foundation-to-tableau"}, "leave out --draw"},
		{[]string{"winnability", "--count", "5", "--all-rules", "--out", "x.txt"}, "leave out --all-rules"},
	} {
		out, errOut, status := runCmd(t, "", tc.args...)
		if status != 2 || out != "" || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 and %q", tc.args, status, out, errOut, tc.want)
		}
	}
}

func TestWilson(t *testing.T) {
	for _, tc := range []struct {
		k, n   int
		lo, hi float64
	}{
		// Reference values of the Wilson score interval at 95%.
		{81, 100, 0.7222, 0.8749},
		{0, 10, 0, 0.2775},
		{10, 10, 0.7225, 1},
		{8195, 10000, 0.8118, 0.8269},
	} {
		lo, hi := wilson(tc.k, tc.n)
		if math.Abs(lo-tc.lo) > 5e-4 || math.Abs(hi-tc.hi) > 5e-4 {
			t.Errorf("wilson(%d, %d) = %.4f, %.4f; want %.4f, %.4f", tc.k, tc.n, lo, hi, tc.lo, tc.hi)
		}
	}
}

func TestQuantile(t *testing.T) {
	var ts []time.Duration
	for i := 1; i <= 100; i++ {
		ts = append(ts, time.Duration(i)*time.Millisecond)
	}
	for q, want := range map[float64]time.Duration{0.5: 50 * time.Millisecond, 0.95: 95 * time.Millisecond, 1: 100 * time.Millisecond, 0: time.Millisecond} {
		if got := quantile(ts, q); got != want {
			t.Errorf("quantile(1..100 ms, %v) = %v, want %v", q, got, want)
		}
	}
	if quantile(nil, 0.5) != 0 {
		t.Error("quantile of nothing is not 0")
	}
}

// TestWinnabilityAllRules: --all-rules prints one summary for each of the
// twelve rule combinations, in order, each with its deals replayed.
func TestWinnabilityAllRules(t *testing.T) {
	out, errOut, status := runCmd(t, "", "winnability", "--all-rules", "--from", "1", "--count", "2",
		"--nodes", "5000", "--budget", "0", "--workers", "2")
	if status != 0 {
		t.Fatalf("exit %d, stderr %q", status, errOut)
	}
	var heads []string
	for _, l := range lines(out) {
		if strings.HasPrefix(l, "deals ") {
			heads = append(heads, l)
		}
	}
	var want []string
	for _, draw := range []string{"1", "3"} {
		for _, passes := range []string{"unlimited", "3", "1"} {
			for _, f2t := range []string{"on", "off"} {
				want = append(want, fmt.Sprintf("deals 1..2 (2); draw %s, passes %s, foundation-to-tableau %s", draw, passes, f2t))
			}
		}
	}
	if strings.Join(heads, "\n") != strings.Join(want, "\n") {
		t.Errorf("summaries for\n%s\nwant\n%s", strings.Join(heads, "\n"), strings.Join(want, "\n"))
	}
	if n := strings.Count(out, "winning lines replayed to a win: "); n != 12 {
		t.Errorf("%d replay lines, want 12:\n%s", n, out)
	}
}

// TestWinnabilityCompareTwins runs --compare-twins with a stand-in for the
// solver without twin stacks when this build has none (the summary's
// shape), and with the real one in a build tagged solverlab.
func TestWinnabilityCompareTwins(t *testing.T) {
	if solveWithoutTwins == nil {
		_, errOut, status := runCmd(t, "", "winnability", "--compare-twins", "--count", "2")
		if status != 2 || !strings.Contains(errOut, "-tags solverlab") {
			t.Errorf("without the hooks: exit %d, stderr %q; want 2 and a hint to -tags solverlab", status, errOut)
		}
		solveWithoutTwins = solver.SolveGame
		t.Cleanup(func() { solveWithoutTwins = nil })
	}
	outFile := filepath.Join(t.TempDir(), "twins.txt")
	out, errOut, status := runCmd(t, "", "winnability", "--compare-twins", "--from", "1", "--count", "6",
		"--nodes", "50000", "--budget", "0", "--workers", "2", "--out", outFile)
	if status != 0 {
		t.Fatalf("exit %d, stderr %q\n%s", status, errOut, out)
	}
	for _, want := range []string{"with twin stacks", "proofs both made: ", "wins both found: ",
		"verdicts that disagree: 0\n", "winning lines replayed to a win: "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	data, err := os.ReadFile(outFile)
	if err != nil {
		t.Fatal(err)
	}
	ls := lines(string(data))
	if len(ls) != 6 {
		t.Fatalf("--out has %d lines, want 6:\n%s", len(ls), data)
	}
	for _, l := range ls {
		if f := strings.Fields(l); len(f) != 9 {
			t.Errorf("--out line %q: want 9 fields (the deal, then verdict, nodes, ms and moves twice)", l)
		}
	}
}
