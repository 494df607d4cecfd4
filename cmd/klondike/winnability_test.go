package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
