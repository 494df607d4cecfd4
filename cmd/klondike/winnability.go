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
// --budget is set: enough to decide nearly every deal, little enough for a
// range of thousands.
const defaultDealBudget = 2 * time.Second

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
  --game klondike|thumb_and_pouch (the games the solver plays), --draw 1|3,
  --passes 0|1|3, --scoring standard|vegas|none, --no-foundation-to-tableau;
  --undo is accepted and makes no difference

Solver:
`+budgetFlagsHelp+`  --workers W     deals solved at once (default 1); each worker holds one
                  search, up to about 600 MB for the hardest deals
  --out FILE      also write one line a deal as it finishes:
                  "N verdict nodes ms moves" (ms: the solver's time)

Measurements:
  --all-rules     solve the deals under each of the twelve rule combinations
                  in turn (draw 1 and 3; unlimited, three passes and one;
                  foundation-to-tableau on and off) and print a summary for
                  each; leave out --draw, --passes,
                  --no-foundation-to-tableau and --out
  --compare-twins solve each deal twice, one after the other: with the
                  solver's twin-stack reduction and without it. The summary
                  sets the two side by side, with the nodes of the proofs
                  and of the wins that both made; a deal winnable one way
                  and unwinnable the other is an error. The lines of --out
                  hold both: "N verdict nodes ms moves verdict nodes ms
                  moves". Only in a klondike built with the solver's
                  measurement hooks:
                  go build -tags solverlab -o klondike-lab ./cmd/klondike

Every winning line is replayed under each undo policy (on, off, no_reveal).

Exit status: 0 when every deal was solved and every winning line replayed,
1 when a winning line failed to replay or the two searches of
--compare-twins disagree (a solver bug), or the output could not be
written, 2 for bad usage.

Examples:
  klondike winnability --from 1 --count 1000
  klondike winnability --from 1 --count 10000 --draw 1 --workers 2
  klondike winnability --from 1 --count 1000 --game thumb_and_pouch --nodes 1000000 --budget 0
  nice -n 19 klondike winnability --from 1 --count 10000 --passes 3 --budget 2s --out d3p3.txt
  klondike winnability --all-rules --from 1 --count 1000 --nodes 1000000 --budget 0 --workers 2
  klondike-lab winnability --compare-twins --from 1 --count 300 --nodes 2000000 --budget 0 --out twins.txt
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

// timesText formats the time per deal: median, 95th and 99th percentile,
// most.
func (s winStats) timesText() string {
	return fmt.Sprintf("median %s, p95 %s, p99 %s, max %s",
		msText(quantile(s.times, 0.5)), msText(quantile(s.times, 0.95)), msText(quantile(s.times, 0.99)), msText(quantile(s.times, 1)))
}

// nodesPerSecond is the search's speed: nodes by the solves' time.
func (s winStats) nodesPerSecond() float64 {
	if s.searchTime <= 0 {
		return 0
	}
	return float64(s.nodes) / s.searchTime.Seconds()
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

// A solveFunc solves a game's position within a budget: solver.SolveGame,
// or the solver with a reduction switched off (--compare-twins).
type solveFunc func(g *engine.Game, b solver.Budget) solver.Result

func runWinnability(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("winnability")
	gf := addGameFlags(fs)
	bf := addBudgetFlags(fs, defaultDealBudget)
	from := fs.Uint64("from", 1, "first deal number")
	count := fs.Int("count", 0, "how many deals")
	workers := fs.Int("workers", 1, "deals solved at once")
	outFile := fs.String("out", "", "file for one line a deal")
	allRules := fs.Bool("all-rules", false, "every rule combination in turn")
	compare := fs.Bool("compare-twins", false, "with and without the twin-stack reduction")
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
	case *allRules && (isSet(fs, "draw") || isSet(fs, "passes") || isSet(fs, "no-foundation-to-tableau")):
		return usageError(stderr, fs.Name(), errors.New("--all-rules sets the draw, the passes and foundation-to-tableau itself: leave out --draw, --passes and --no-foundation-to-tableau"))
	case *allRules && *outFile != "":
		return usageError(stderr, fs.Name(), errors.New("--out writes the deals of one rule set: leave out --all-rules"))
	case *compare && solveWithoutTwins == nil:
		return usageError(stderr, fs.Name(), errNoSolverLab)
	}
	if err := gf.checkSolvable(); err != nil {
		return usageError(stderr, fs.Name(), err)
	}
	budget, err := bf.budget()
	if err != nil {
		return usageError(stderr, fs.Name(), err)
	}
	rules, err := gf.rules(fs)
	if err != nil {
		return usageError(stderr, fs.Name(), err)
	}
	ruleSets := []engine.Rules{rules}
	if *allRules {
		ruleSets = everyRules(rules)
	}
	solvers := []solveFunc{solver.SolveGame}
	if *compare {
		solvers = append(solvers, solveWithoutTwins)
	}
	var out *os.File
	if *outFile != "" {
		if out, err = os.Create(*outFile); err != nil {
			return inputError(stderr, fs.Name(), err)
		}
	}

	w := bufio.NewWriter(stdout)
	status := exitOK
	var outErr error
	for k, r := range ruleSets {
		start := time.Now()
		var bar *progressBar
		if isTerminal(stderr) {
			bar = &progressBar{w: stderr, total: *count, start: start}
		}
		done := func(n uint64, rs []dealResult, finished, winnable int) {
			bar.update(finished, winnable)
			if out != nil && outErr == nil {
				// One line a deal as it finishes, so that an interrupted run
				// leaves its results behind.
				outErr = writeDealLine(out, n, rs)
			}
		}
		results := solveRange(*from, *count, r, budget, solvers, *workers, done)
		bar.finish()
		wall := time.Since(start)
		if k > 0 {
			w.WriteByte('\n')
		}
		rng := dealRange{from: *from, count: *count, rules: r, budget: budget, workers: *workers, wall: wall}
		var st int
		if len(solvers) == 1 {
			st = printSummary(w, stderr, fs.Name(), rng, column(results, 0))
		} else {
			st = printComparison(w, stderr, fs.Name(), rng, column(results, 0), column(results, 1))
		}
		status = max(status, st)
		if err := w.Flush(); err != nil {
			break // flush reports it below
		}
	}
	if out != nil {
		if err := errors.Join(outErr, out.Close()); err != nil {
			fmt.Fprintf(stderr, "%s: writing %s: %v\n", fs.Name(), *outFile, err)
			status = exitFailure
		}
	}
	return flush(w, stderr, fs.Name(), status)
}

// everyRules returns r under each rule combination the solver supports,
// in r's game: draw 1 and 3; unlimited passes, three and one;
// foundation-to-tableau on and off.
func everyRules(r engine.Rules) []engine.Rules {
	var out []engine.Rules
	for _, draw := range []int{1, 3} {
		for _, passes := range []int{0, 3, 1} {
			for _, f2t := range []bool{true, false} {
				r.Draw, r.Passes, r.FoundationToTableau = draw, passes, f2t
				out = append(out, r)
			}
		}
	}
	return out
}

// writeDealLine writes a deal's line of --out: its number, then verdict,
// nodes, milliseconds and moves of each solver.
func writeDealLine(w io.Writer, n uint64, rs []dealResult) error {
	b := strconv.AppendUint(nil, n, 10)
	for _, r := range rs {
		b = fmt.Appendf(b, " %v %d %.3f %d", r.verdict, r.nodes, float64(r.elapsed)/float64(time.Millisecond), r.moves)
	}
	_, err := w.Write(append(b, '\n'))
	return err
}

// column returns the results of solver k of each deal.
func column(results [][]dealResult, k int) []dealResult {
	out := make([]dealResult, len(results))
	for i, rs := range results {
		out[i] = rs[k]
	}
	return out
}

// dealRange describes one run over a range of deals, for its summary.
type dealRange struct {
	from    uint64
	count   int
	rules   engine.Rules
	budget  solver.Budget
	workers int
	wall    time.Duration
}

// printHead prints the deals, the rules and the budget of a summary.
func printHead(w io.Writer, d dealRange) {
	last := d.from + uint64(d.count) - 1
	game := ""
	if d.rules.Game != engine.Klondike {
		game = d.rules.Game.String() + ", "
	}
	fmt.Fprintf(w, "deals %d..%d (%d); %sdraw %d, passes %s, foundation-to-tableau %s\n",
		d.from, last, d.count, game, d.rules.Draw, passesName(d.rules.Passes), onOff(d.rules.FoundationToTableau))
	fmt.Fprintf(w, "budget %s a deal; %d worker(s); wall time %v\n", budgetName(d.budget), d.workers, d.wall.Round(time.Second))
}

// printSummary prints the summary of one solver's results and returns the
// exit status: exitFailure when a winning line did not replay.
func printSummary(w, stderr io.Writer, cmd string, d dealRange, results []dealResult) int {
	s := summarize(results)
	printHead(w, d)
	lo, hi := wilson(s.win, s.deals)
	fmt.Fprintf(w, "winnable    %6d  %7s  95%% CI %.2f%%–%.2f%% (Wilson)\n", s.win, pct(s.win, s.deals), 100*lo, 100*hi)
	fmt.Fprintf(w, "unwinnable  %6d  %7s\n", s.lose, pct(s.lose, s.deals))
	fmt.Fprintf(w, "unknown     %6d  %7s\n", s.unknown, pct(s.unknown, s.deals))
	fmt.Fprintf(w, "winnable if every unknown were: %s\n", pct(s.win+s.unknown, s.deals))
	fmt.Fprintf(w, "time per deal: %s\n", s.timesText())
	fmt.Fprintf(w, "nodes %d (%.0f a second of search)\n", s.nodes, s.nodesPerSecond())
	fmt.Fprintf(w, "winning lines replayed to a win: %d of %d\n", s.replayed, s.win)
	if s.replayed != s.win {
		fmt.Fprintf(stderr, "%s: %d winning lines did not replay: a solver bug\n", cmd, s.win-s.replayed)
		return exitFailure
	}
	return exitOK
}

// solveRange solves deals from..from+count−1 on workers goroutines, each
// deal with every one of solvers in turn, and returns their results in
// deal order (one dealResult a solver). done is called after each deal
// with its number, its results and the counts so far (deals finished, and
// winnable by the first solver), under a lock (one call at a time), from
// the worker that finished it.
func solveRange(from uint64, count int, r engine.Rules, b solver.Budget, solvers []solveFunc, workers int, done func(n uint64, rs []dealResult, finished, winnable int)) [][]dealResult {
	results := make([][]dealResult, count)
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
				d := engine.NumberedDealFor(r.Game, from+uint64(i))
				rs := make([]dealResult, len(solvers))
				for k, solve := range solvers {
					rs[k] = solveDeal(d, r, b, solve)
				}
				mu.Lock()
				results[i] = rs
				finished++
				if rs[0].verdict == solver.Winnable {
					win++
				}
				if done != nil {
					done(from+uint64(i), rs, finished, win)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return results
}

// solveDeal solves deal d under rules r with solve, and replays a winning
// line.
func solveDeal(d engine.Deal, r engine.Rules, b solver.Budget, solve solveFunc) dealResult {
	g, err := engine.NewGame(d, r)
	if err != nil {
		return dealResult{}
	}
	res := solve(g, b)
	dr := dealResult{verdict: res.Verdict, nodes: res.Nodes, elapsed: res.Elapsed, moves: len(res.Moves)}
	if res.Verdict == solver.Winnable {
		dr.replayed = replaysToWin(d, r, res.Moves)
	}
	return dr
}

// replaysToWin reports whether moves, played on a new game of deal d under
// rules r with each undo policy, are all accepted and win it: a winning
// line never needs an undo.
func replaysToWin(d engine.Deal, r engine.Rules, moves []engine.Move) bool {
	for _, u := range []engine.UndoPolicy{engine.UndoOn, engine.UndoOff, engine.UndoNoReveal} {
		r.Undo = u
		g, err := engine.NewGame(d, r)
		if err != nil {
			return false
		}
		for _, m := range moves {
			if _, err := g.Apply(m); err != nil {
				return false
			}
		}
		if g.Status() != engine.Won {
			return false
		}
	}
	return true
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
