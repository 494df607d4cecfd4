package storetest

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"klondike/lobby"
)

// RunAllowances runs the conformance suite of lobby.Allowances. Every call
// of newAllowances must return a client of one and the same store, as the
// nodes of a deployment each have theirs: a subtest that takes two
// clients wants them to count together. Subtests run in parallel with keys
// of their own.
//
//	func TestAllowancesConformance(t *testing.T) {
//		a := memstore.NewAllowances()
//		storetest.RunAllowances(t, func(*testing.T) lobby.Allowances { return a })
//	}
func RunAllowances(t *testing.T, newAllowances func(t *testing.T) lobby.Allowances) {
	t.Helper()
	var runID atomic.Int64
	stamp := time.Now().UnixNano()
	tests := []struct {
		name string
		fn   func(t *testing.T, h *allowHarness)
	}{
		{"TakeN", testTakeN},
		{"TakeRefills", testTakeRefills},
		{"RefusedTakeSpendsNothing", testRefusedTakeSpendsNothing},
		{"TakeFullAgainAfterPeriod", testTakeFullAgain},
		{"TakeUnlimited", testTakeUnlimited},
		{"TakeKeysIndependent", testTakeKeysIndependent},
		{"TakeConcurrently", testTakeConcurrent},
		{"HoldMax", testHoldMax},
		{"HoldAgainCountsOnce", testHoldAgain},
		{"HoldAgainMovesUntil", testHoldMovesUntil},
		{"ExpiredHoldsFreePlaces", testHoldExpiry},
		{"HoldAlreadyOver", testHoldOver},
		{"ReleaseFreesOne", testRelease},
		{"HoldMaxBelowOne", testHoldNoMax},
		{"HoldKeysIndependent", testHoldKeysIndependent},
		{"HoldConcurrently", testHoldConcurrent},
		{"ClientsShareCounts", testAllowancesShared},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			t.Cleanup(cancel)
			tc.fn(t, &allowHarness{
				t: t, a: newAllowances(t), newAllowances: newAllowances, ctx: ctx,
				prefix: fmt.Sprintf("al%x-%d-%s", stamp, runID.Add(1), tc.name),
			})
		})
	}
}

// allowHarness carries a subtest's client and makes its keys.
type allowHarness struct {
	t             *testing.T
	a             lobby.Allowances
	newAllowances func(t *testing.T) lobby.Allowances
	ctx           context.Context
	prefix        string
	n             int
}

// key returns a key no other subtest or run uses.
func (h *allowHarness) key() string {
	h.n++
	return fmt.Sprintf("%s:k%d", h.prefix, h.n)
}

// allowT0 is the suite's clock at its start: the stores count by the
// caller's clock, whatever it says.
var allowT0 = time.Date(2031, 3, 14, 15, 9, 26, 0, time.UTC)

// take wants a's Take to answer want.
func (h *allowHarness) take(a lobby.Allowances, key string, n int, period time.Duration, now time.Time, want bool) {
	h.t.Helper()
	got, err := a.Take(h.ctx, key, n, period, now)
	if err != nil || got != want {
		h.t.Fatalf("Take(%s, %d, %v) at t0+%v = %v, %v; want %v", key, n, period, now.Sub(allowT0), got, err, want)
	}
}

// hold wants a's Hold to answer want.
func (h *allowHarness) hold(a lobby.Allowances, key, member string, max int, until, now time.Time, want bool) {
	h.t.Helper()
	got, err := a.Hold(h.ctx, key, member, max, until, now)
	if err != nil || got != want {
		h.t.Fatalf("Hold(%s, %s, max %d, until t0+%v) at t0+%v = %v, %v; want %v",
			key, member, max, until.Sub(allowT0), now.Sub(allowT0), got, err, want)
	}
}

func (h *allowHarness) release(a lobby.Allowances, key, member string) {
	h.t.Helper()
	if err := a.Release(h.ctx, key, member); err != nil {
		h.t.Fatalf("Release(%s, %s): %v", key, member, err)
	}
}

func testTakeN(t *testing.T, h *allowHarness) {
	k := h.key()
	for range 5 {
		h.take(h.a, k, 5, time.Minute, allowT0, true)
	}
	h.take(h.a, k, 5, time.Minute, allowT0, false)
	h.take(h.a, k, 5, time.Minute, allowT0.Add(time.Second), false)
}

// One use comes back each period/n, not sooner.
func testTakeRefills(t *testing.T, h *allowHarness) {
	k := h.key()
	for range 3 {
		h.take(h.a, k, 3, time.Minute, allowT0, true)
	}
	every := 20 * time.Second
	h.take(h.a, k, 3, time.Minute, allowT0.Add(every-time.Millisecond), false)
	h.take(h.a, k, 3, time.Minute, allowT0.Add(every), true)
	h.take(h.a, k, 3, time.Minute, allowT0.Add(every), false)
	h.take(h.a, k, 3, time.Minute, allowT0.Add(2*every), true)
	h.take(h.a, k, 3, time.Minute, allowT0.Add(2*every+time.Millisecond), false)
}

// A refused take spends nothing: however many were refused, the next use
// comes back after period/n.
func testRefusedTakeSpendsNothing(t *testing.T, h *allowHarness) {
	k := h.key()
	h.take(h.a, k, 2, time.Minute, allowT0, true)
	h.take(h.a, k, 2, time.Minute, allowT0, true)
	for i := range 50 {
		h.take(h.a, k, 2, time.Minute, allowT0.Add(time.Duration(i)*100*time.Millisecond), false)
	}
	h.take(h.a, k, 2, time.Minute, allowT0.Add(30*time.Second), true)
}

// A bucket left alone for a period holds n again, and no more.
func testTakeFullAgain(t *testing.T, h *allowHarness) {
	k := h.key()
	for range 4 {
		h.take(h.a, k, 4, time.Hour, allowT0, true)
	}
	later := allowT0.Add(3 * time.Hour)
	for range 4 {
		h.take(h.a, k, 4, time.Hour, later, true)
	}
	h.take(h.a, k, 4, time.Hour, later, false)
}

func testTakeUnlimited(t *testing.T, h *allowHarness) {
	k := h.key()
	for _, n := range []int{0, -1} {
		for range 100 {
			h.take(h.a, k, n, time.Hour, allowT0, true)
		}
	}
	// Nothing was counted: a limited take has its whole bucket.
	h.take(h.a, k, 1, time.Hour, allowT0, true)
	h.take(h.a, k, 1, time.Hour, allowT0, false)
}

// Keys count apart, and a key's holds are not its bucket.
func testTakeKeysIndependent(t *testing.T, h *allowHarness) {
	a, b := h.key(), h.key()
	h.take(h.a, a, 1, time.Hour, allowT0, true)
	h.take(h.a, a, 1, time.Hour, allowT0, false)
	h.take(h.a, b, 1, time.Hour, allowT0, true)
	h.hold(h.a, a, "m", 1, allowT0.Add(time.Hour), allowT0, true)
	c := h.key()
	h.hold(h.a, c, "m", 1, allowT0.Add(time.Hour), allowT0, true)
	h.take(h.a, c, 1, time.Hour, allowT0, true)
}

// Concurrent takes of one bucket get exactly its n.
func testTakeConcurrent(t *testing.T, h *allowHarness) {
	k := h.key()
	const n, tries = 10, 40
	var got atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, tries)
	for range tries {
		wg.Go(func() {
			ok, err := h.a.Take(h.ctx, k, n, time.Hour, allowT0)
			if err != nil {
				errs <- err
			}
			if ok {
				got.Add(1)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if got.Load() != n {
		t.Fatalf("%d concurrent takes of a bucket of %d: %d taken, want %d", tries, n, got.Load(), n)
	}
}

func testHoldMax(t *testing.T, h *allowHarness) {
	k := h.key()
	until := allowT0.Add(time.Hour)
	for i := range 3 {
		h.hold(h.a, k, fmt.Sprint("m", i), 3, until, allowT0, true)
	}
	h.hold(h.a, k, "m3", 3, until, allowT0, false)
	h.hold(h.a, k, "m3", 3, until, allowT0.Add(time.Minute), false)
	// A larger max lets one more in.
	h.hold(h.a, k, "m3", 4, until, allowT0, true)
}

// Holding a held member again takes no second place, even at the max.
func testHoldAgain(t *testing.T, h *allowHarness) {
	k := h.key()
	until := allowT0.Add(time.Hour)
	h.hold(h.a, k, "a", 2, until, allowT0, true)
	h.hold(h.a, k, "a", 2, until, allowT0, true)
	h.hold(h.a, k, "b", 2, until, allowT0, true)
	h.hold(h.a, k, "a", 2, until, allowT0, true)
	h.hold(h.a, k, "b", 2, until, allowT0, true)
	h.hold(h.a, k, "c", 2, until, allowT0, false)
}

// Holding a member again moves its until, later or sooner.
func testHoldMovesUntil(t *testing.T, h *allowHarness) {
	k := h.key()
	h.hold(h.a, k, "a", 2, allowT0.Add(time.Minute), allowT0, true)
	h.hold(h.a, k, "b", 2, allowT0.Add(time.Minute), allowT0, true)
	h.hold(h.a, k, "a", 2, allowT0.Add(3*time.Minute), allowT0, true)
	h.hold(h.a, k, "b", 2, allowT0.Add(10*time.Second), allowT0, true)
	at := allowT0.Add(2 * time.Minute) // b's hold is over, a's is not
	h.hold(h.a, k, "c", 2, allowT0.Add(time.Hour), at, true)
	h.hold(h.a, k, "d", 2, allowT0.Add(time.Hour), at, false)
}

// A hold counts until its until, not at it nor after.
func testHoldExpiry(t *testing.T, h *allowHarness) {
	k := h.key()
	until := allowT0.Add(time.Minute)
	h.hold(h.a, k, "a", 1, until, allowT0, true)
	h.hold(h.a, k, "b", 1, until.Add(time.Hour), until.Add(-time.Millisecond), false)
	h.hold(h.a, k, "b", 1, until.Add(time.Hour), until, true)
	h.hold(h.a, k, "a", 1, until.Add(time.Hour), until, false)
}

// A hold whose until is not past now takes no place, and ends the
// member's hold.
func testHoldOver(t *testing.T, h *allowHarness) {
	k := h.key()
	h.hold(h.a, k, "a", 1, allowT0.Add(time.Hour), allowT0, true)
	h.hold(h.a, k, "a", 1, allowT0, allowT0, true)
	h.hold(h.a, k, "b", 1, allowT0.Add(time.Hour), allowT0, true)
	h.hold(h.a, k, "c", 2, allowT0.Add(-time.Minute), allowT0, true)
	h.hold(h.a, k, "d", 2, allowT0.Add(time.Hour), allowT0, true)
	h.hold(h.a, k, "e", 2, allowT0.Add(time.Hour), allowT0, false)
}

func testRelease(t *testing.T, h *allowHarness) {
	k := h.key()
	until := allowT0.Add(time.Hour)
	h.hold(h.a, k, "a", 2, until, allowT0, true)
	h.hold(h.a, k, "b", 2, until, allowT0, true)
	h.release(h.a, k, "a")
	h.release(h.a, k, "a") // again: nothing to do
	h.release(h.a, k, "z") // never held
	h.release(h.a, h.key(), "a")
	h.hold(h.a, k, "c", 2, until, allowT0, true)
	h.hold(h.a, k, "d", 2, until, allowT0, false)
	h.hold(h.a, k, "b", 2, until, allowT0, true)
}

// A max below 1 holds nothing, and counts nothing.
func testHoldNoMax(t *testing.T, h *allowHarness) {
	k := h.key()
	until := allowT0.Add(time.Hour)
	h.hold(h.a, k, "a", 0, until, allowT0, false)
	h.hold(h.a, k, "b", -1, until, allowT0, false)
	h.hold(h.a, k, "c", 1, until, allowT0, true)
}

func testHoldKeysIndependent(t *testing.T, h *allowHarness) {
	a, b := h.key(), h.key()
	until := allowT0.Add(time.Hour)
	h.hold(h.a, a, "m", 1, until, allowT0, true)
	h.hold(h.a, b, "m", 1, until, allowT0, true)
	h.hold(h.a, a, "n", 1, until, allowT0, false)
	h.take(h.a, a, 1, time.Hour, allowT0, true)
	h.hold(h.a, a, "n", 1, until, allowT0, false)
	h.release(h.a, b, "m")
	h.hold(h.a, a, "n", 1, until, allowT0, false)
}

// Concurrent holds of different members get exactly max places.
func testHoldConcurrent(t *testing.T, h *allowHarness) {
	k := h.key()
	const max, tries = 5, 30
	var got atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, tries)
	for i := range tries {
		wg.Go(func() {
			ok, err := h.a.Hold(h.ctx, k, fmt.Sprint("m", i), max, allowT0.Add(time.Hour), allowT0)
			if err != nil {
				errs <- err
			}
			if ok {
				got.Add(1)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if got.Load() != max {
		t.Fatalf("%d concurrent holds with max %d: %d held, want %d", tries, max, got.Load(), max)
	}
}

// Two clients of one store, as two nodes, count together.
func testAllowancesShared(t *testing.T, h *allowHarness) {
	a, b := h.a, h.newAllowances(t)
	k := h.key()
	h.take(a, k, 2, time.Hour, allowT0, true)
	h.take(b, k, 2, time.Hour, allowT0, true)
	h.take(a, k, 2, time.Hour, allowT0, false)
	h.take(b, k, 2, time.Hour, allowT0, false)

	until := allowT0.Add(time.Hour)
	h.hold(a, k, "x", 2, until, allowT0, true)
	h.hold(b, k, "y", 2, until, allowT0, true)
	h.hold(b, k, "z", 2, until, allowT0, false)
	h.hold(b, k, "x", 2, until, allowT0, true) // a's hold, held again
	h.release(b, k, "x")
	h.hold(a, k, "z", 2, until, allowT0, true)
	h.hold(a, k, "w", 2, until, allowT0, false)
}
