package solver

import (
	"os"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"klondike/engine"
)

// measureEnv switches on TestMeasureReplay, which is too long for the
// default test run:
//
//	KLONDIKE_SOLVER_MEASURE=1 KLONDIKE_SOLVER_DEALS=2000 \
//	    nice -n 19 go test ./engine/solver -run TestMeasureReplay -v -timeout 0
//
// The winnability figures of docs/solver.md come from 'klondike
// winnability', which replays every winning line as well.
const (
	measureEnv      = "KLONDIKE_SOLVER_MEASURE"
	measureDealsEnv = "KLONDIKE_SOLVER_DEALS" // deals per variant (default 1000)
)

// TestMeasureReplay solves numbered deals 1..N in every variant with a node
// budget, replays every winning line through a fresh engine game with every
// undo policy, and logs the verdicts, the time per deal and the search's
// speed.
func TestMeasureReplay(t *testing.T) {
	if os.Getenv(measureEnv) == "" {
		t.Skip("set " + measureEnv + "=1 to run")
	}
	deals := 1000
	if s := os.Getenv(measureDealsEnv); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("%s=%q: want a positive number", measureDealsEnv, s)
		}
		deals = n
	}
	budget := Budget{Nodes: 1_000_000}
	for _, r := range variants() {
		t.Run(variantName(r), func(t *testing.T) {
			var (
				mu                 sync.Mutex
				next               int
				win, lose, unknown int
				nodes              int64
				search             time.Duration
				wg                 sync.WaitGroup
			)
			for range runtime.GOMAXPROCS(0) {
				wg.Go(func() {
					for {
						mu.Lock()
						i := next
						next++
						mu.Unlock()
						if i >= deals {
							return
						}
						d := engine.NumberedDeal(uint64(i + 1))
						res := Solve(d, r, budget)
						if res.Verdict == Winnable {
							for _, u := range []engine.UndoPolicy{engine.UndoOn, engine.UndoOff, engine.UndoNoReveal} {
								rr := r
								rr.Undo = u
								if err := replay(d, rr, res.Moves); err != nil {
									t.Errorf("deal %d (undo %v): %v", i+1, u, err)
								}
							}
						}
						mu.Lock()
						switch res.Verdict {
						case Winnable:
							win++
						case Unwinnable:
							lose++
						default:
							unknown++
						}
						nodes += res.Nodes
						search += res.Elapsed
						mu.Unlock()
					}
				})
			}
			wg.Wait()
			t.Logf("%d deals, budget %d nodes: %d winnable (all replayed), %d unwinnable, %d unknown; %.0f nodes/s",
				deals, budget.Nodes, win, lose, unknown, float64(nodes)/max(search.Seconds(), 1e-9))
		})
	}
}
