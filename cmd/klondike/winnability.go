package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"sync"
	"time"

	"klondike/engine"
	"klondike/engine/solver"
)

// defaultDealBudget is the time klondike winnability gives each deal when no
// --budget is set: the target is to decide a deal within 2 s.
const defaultDealBudget = 2 * time.Second

// progressEvery is the least time between two redraws of the progress bar.
const progressEvery = 200 * time.Millisecond

func winnabilityUsage(w io.Writer) {
	fmt.Fprintf(w, `Usage: klondike winnability --from A --count K [rule flags] [--budget DURATION] [--nodes N] [--workers W] [--out FILE]

Winnability solves the numbered deals A, A+1, …, A+K−1 under the rules, each
with the solver's budget, and prints the share of winnable deals with its
95%% confidence interval (the Wilson score interval), the shares of
unwinnable and unknown deals (unknown: the budget ran out), and the time per
deal (median, 95th and 99th percentile, most). Every winning line is
replayed through the engine once more, apart from the solver's own check,
and the number replayed is printed.

A progress bar is drawn on stderr when stderr is a terminal.

The solver sees every card: the figures are those of the "thoughtful" game,
as the published research states them.

Deals:
  --from A        the first deal number (default 1)
  --count K       how many deals (required, at least 1)

Rules (as for the other commands):
  --draw 1|3, --passes 0|1|3, --scoring standard|vegas|none,
  --no-foundation-to-tableau; --undo is accepted and makes no difference

Solver:
`+budgetFlagsHelp+`  --workers W     deals solved at once (default 1); each worker holds one
                  search, up to about 600 MB for the hardest deals
  --out FILE      also write one line a deal as it finishes:
                  "N verdict nodes ms moves" (ms: the solver's time)

Exit status: 0 when every deal was solved and every winning line replayed,
1 when a winning line failed to replay (a solver bug) or the output could
not be written, 2 for bad usage.

Examples:
  klondike winnability --from 1 --count 1000
  klondike winnability --from 1 --count 10000 --draw 1 --workers 2
  nice -n 19 klondike winnability --from 1 --count 10000 --passes 3 --budget 2s --out d3p3.txt
`, defaultDealBudget)
}

// dealResult is the outcome of one deal.
type dealResult struct {
	verdict  solver.Verdict
	nodes    int64
	elapsed  time.Duration
	moves    int
	replayed bool // a winning line replayed through the engine to a win
}

// winStats sums up the results of a range of deals.
type winStats struct {
	deals, win, lose, unknown, replayed int
	nodes                               int64
	searchTime                          time.Duration // sum of the solves' times
	times                               []time.Duration
}

func summarize(results []dealResult) winStats {
	s := winStats{deals: len(results), times: make([]time.Duration, len(results))}
	for i, r := range results {
		switch r.verdict {
		case solver.Winnable:
			s.win++
			if r.replayed {
				s.replayed++
			}
		case solver.Unwinnable:
			s.lose++
		default:
			s.unknown++
		}
		s.nodes += r.nodes
		s.searchTime += r.elapsed
		s.times[i] = r.elapsed
	}
	slices.Sort(s.times)
	return s
}

// quantile returns the q-quantile (0..1) of sorted by the nearest rank.
func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// wilson returns the Wilson score interval at 95% confidence for k
// successes in n trials.
func wilson(k, n int) (lo, hi float64) {
	if n == 0 {
		return 0, 1
	}
	const z = 1.959963984540054 // the 97.5% point of the standard normal
	p, nn := float64(k)/float64(n), float64(n)
	den := 1 + z*z/nn
	mid := (p + z*z/(2*nn)) / den
	half := z / den * math.Sqrt(p*(1-p)/nn+z*z/(4*nn*nn))
	return max(0, mid-half), min(1, mid+half)
}

// pct formats a share as a percentage with two decimals.
func pct(k, n int) string {
	return strconv.FormatFloat(100*float64(k)/float64(max(n, 1)), 'f', 2, 64) + "%"
}

// msText formats a duration in milliseconds with one decimal.
func msText(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 1, 64) + " ms"
}

func runWinnability(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("winnability")
	gf := addGameFlags(fs)
	bf := addBudgetFlags(fs, defaultDealBudget)
	from := fs.Uint64("from", 1, "first deal number")
	count := fs.Int("count", 0, "how many deals")
	workers := fs.Int("workers", 1, "deals solved at once")
	outFile := fs.String("out", "", "file for one line a deal")
	if ok, status := parseFlags(fs, args, winnabilityUsage, stdout, stderr); !ok {
		return status
	}
	switch {
	case fs.NArg() > 0:
		return usageError(stderr, fs.Name(), fmt.Errorf("unexpected arguments %q", fs.Args()))
	case isSet(fs, "seed") || isSet(fs, "deal"):
		return usageError(stderr, fs.Name(), errNoDealFlags)
	case !isSet(fs, "count"):
		return usageError(stderr, fs.Name(), fmt.Errorf("no deals: give --count K (and --from A)"))
	case *count < 1:
		return usageError(stderr, fs.Name(), fmt.Errorf("--count %d: want at least 1", *count))
	case *from+uint64(*count)-1 < *from:
		return usageError(stderr, fs.Name(), fmt.Errorf("--from %d --count %d: deal numbers end at %d", *from, *count, uint64(math.MaxUint64)))
	case *workers < 1:
		return usageError(stderr, fs.Name(), fmt.Errorf("--workers %d: want at least 1", *workers))
	}
	budget, err := bf.budget()
	if err != nil {
		return usageError(stderr, fs.Name(), err)
	}
	rules, err := gf.rules(fs)
	if err != nil {
		return usageError(stderr, fs.Name(), err)
	}
	var out *os.File
	if *outFile != "" {
		if out, err = os.Create(*outFile); err != nil {
			return inputError(stderr, fs.Name(), err)
		}
	}

	start := time.Now()
	var bar *progressBar
	if isTerminal(stderr) {
		bar = &progressBar{w: stderr, total: *count, start: start}
	}
	var outErr error
	done := func(n uint64, r dealResult, finished, winnable int) {
		bar.update(finished, winnable)
		if out != nil && outErr == nil {
			// One line a deal as it finishes, so that an interrupted run
			// leaves its results behind.
			_, outErr = fmt.Fprintf(out, "%d %v %d %.3f %d\n", n, r.verdict, r.nodes, float64(r.elapsed)/float64(time.Millisecond), r.moves)
		}
	}
	results := solveRange(*from, *count, rules, budget, *workers, done)
	bar.finish()
	wall := time.Since(start)
	s := summarize(results)

	w := bufio.NewWriter(stdout)
	lo, hi := wilson(s.win, s.deals)
	last := *from + uint64(*count) - 1
	fmt.Fprintf(w, "deals %d..%d (%d); draw %d, passes %s, foundation-to-tableau %s\n",
		*from, last, s.deals, rules.Draw, passesName(rules.Passes), onOff(rules.FoundationToTableau))
	fmt.Fprintf(w, "budget %s a deal; %d worker(s); wall time %v\n", budgetName(budget), *workers, wall.Round(time.Second))
	fmt.Fprintf(w, "winnable    %6d  %7s  95%% CI %.2f%%–%.2f%% (Wilson)\n", s.win, pct(s.win, s.deals), 100*lo, 100*hi)
	fmt.Fprintf(w, "unwinnable  %6d  %7s\n", s.lose, pct(s.lose, s.deals))
	fmt.Fprintf(w, "unknown     %6d  %7s\n", s.unknown, pct(s.unknown, s.deals))
	fmt.Fprintf(w, "winnable if every unknown were: %s\n", pct(s.win+s.unknown, s.deals))
	fmt.Fprintf(w, "time per deal: median %s, p95 %s, p99 %s, max %s\n",
		msText(quantile(s.times, 0.5)), msText(quantile(s.times, 0.95)), msText(quantile(s.times, 0.99)), msText(quantile(s.times, 1)))
	nps := 0.0
	if s.searchTime > 0 {
		nps = float64(s.nodes) / s.searchTime.Seconds()
	}
	fmt.Fprintf(w, "nodes %d (%.0f a second of search)\n", s.nodes, nps)
	fmt.Fprintf(w, "winning lines replayed to a win: %d of %d\n", s.replayed, s.win)
	status := exitOK
	if s.replayed != s.win {
		fmt.Fprintf(stderr, "%s: %d winning lines did not replay: a solver bug\n", fs.Name(), s.win-s.replayed)
		status = exitFailure
	}
	if out != nil {
		if err := errors.Join(outErr, out.Close()); err != nil {
			fmt.Fprintf(stderr, "%s: writing %s: %v\n", fs.Name(), *outFile, err)
			status = exitFailure
		}
	}
	return flush(w, stderr, fs.Name(), status)
}

// solveRange solves deals from..from+count−1 on workers goroutines and
// returns their results in deal order. done is called after each deal with
// its number, its result and the counts so far, under a lock (one call at a
// time), from the worker that finished it.
func solveRange(from uint64, count int, r engine.Rules, b solver.Budget, workers int, done func(n uint64, r dealResult, finished, winnable int)) []dealResult {
	results := make([]dealResult, count)
	var (
		mu       sync.Mutex
		next     int
		finished int
		win      int
		wg       sync.WaitGroup
	)
	for range min(workers, count) {
		wg.Go(func() {
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= count {
					return
				}
				d := engine.NumberedDeal(from + uint64(i))
				res := solver.Solve(d, r, b)
				dr := dealResult{verdict: res.Verdict, nodes: res.Nodes, elapsed: res.Elapsed, moves: len(res.Moves)}
				if res.Verdict == solver.Winnable {
					dr.replayed = replaysToWin(d, r, res.Moves)
				}
				mu.Lock()
				results[i] = dr
				finished++
				if dr.verdict == solver.Winnable {
					win++
				}
				if done != nil {
					done(from+uint64(i), dr, finished, win)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return results
}

// replaysToWin reports whether moves, played on a new game of deal d under
// rules r, are all accepted and win it.
func replaysToWin(d engine.Deal, r engine.Rules, moves []engine.Move) bool {
	g, err := engine.NewGame(d, r)
	if err != nil {
		return false
	}
	for _, m := range moves {
		if _, err := g.Apply(m); err != nil {
			return false
		}
	}
	return g.Status() == engine.Won
}

func passesName(p int) string {
	if p == 0 {
		return "unlimited"
	}
	return strconv.Itoa(p)
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// budgetName describes a solver budget, such as "2s" or "2s or 1000000 nodes".
func budgetName(b solver.Budget) string {
	switch {
	case b.Time > 0 && b.Nodes > 0:
		return fmt.Sprintf("%v or %d nodes", b.Time, b.Nodes)
	case b.Time > 0:
		return b.Time.String()
	case b.Nodes > 0:
		return fmt.Sprintf("%d nodes", b.Nodes)
	}
	return "none"
}

// A progressBar draws "[=====>    ] 1234/10000 12% winnable 81.2% 3m left"
// on one line of a terminal. A nil *progressBar draws nothing.
type progressBar struct {
	w     io.Writer
	total int
	start time.Time
	drawn time.Time
}

// progressWidth is the number of cells of the bar.
const progressWidth = 30

func (p *progressBar) update(finished, winnable int) {
	if p == nil {
		return
	}
	now := time.Now()
	if finished < p.total && now.Sub(p.drawn) < progressEvery {
		return
	}
	p.drawn = now
	fill := finished * progressWidth / p.total
	bar := make([]byte, progressWidth)
	for i := range bar {
		switch {
		case i < fill:
			bar[i] = '='
		case i == fill:
			bar[i] = '>'
		default:
			bar[i] = ' '
		}
	}
	elapsed := now.Sub(p.start)
	left := time.Duration(float64(elapsed) / float64(finished) * float64(p.total-finished))
	fmt.Fprintf(p.w, "\r[%s] %d/%d %3d%% winnable %s, %v left ", bar, finished, p.total,
		finished*100/p.total, pct(winnable, finished), left.Round(time.Second))
}

// finish ends the bar's line.
func (p *progressBar) finish() {
	if p == nil {
		return
	}
	fmt.Fprintln(p.w)
}
