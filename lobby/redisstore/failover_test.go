package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"klondike/lobby/redisstore"
	"klondike/lobby/redisstore/redistest"
	"klondike/match"
)

// failoverWriter appends one player's moves to a round as fast as the
// store takes them, as a player whose every refused move is sent again
// would: an append that fails goes again at the same seq. An append
// refused with SEQGAP after the failover means that acknowledged entries
// were lost (replication is asynchronous): the writer counts them and
// writes them back from its own copy, as a match.Round's seat does.
type failoverWriter struct {
	s      *redisstore.Store
	round  string
	player string
	acked  atomic.Int64 // the last seq acknowledged

	mu          sync.Mutex
	firstFail   time.Time // the first failed append
	firstBack   time.Time // the first acknowledged append after it
	unavailable int
	bad         []error      // errors that are neither unavailable nor a loss
	lost        map[int]bool // seqs of acknowledged entries found missing
	backAfter   int          // appends acknowledged since firstBack
}

func (w *failoverWriter) entry(seq int) match.LogEntry {
	return match.LogEntry{Seq: seq, Move: fmt.Sprintf("T%d-F", seq%7+1), AtMs: int64(seq)}
}

// run appends until stop is closed.
func (w *failoverWriter) run(stop <-chan struct{}) {
	seq := 1
	for {
		select {
		case <-stop:
			return
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		err := w.s.Append(ctx, w.round, 0, w.entry(seq), standing(w.player, seq))
		cancel()
		now := time.Now()
		w.mu.Lock()
		switch {
		case err == nil:
			if !w.firstFail.IsZero() {
				if w.firstBack.IsZero() {
					w.firstBack = now
				}
				w.backAfter++
			}
			w.acked.Store(int64(seq))
			seq++
		case errors.Is(err, match.ErrUnavailable):
			w.unavailable++
			if w.firstFail.IsZero() {
				w.firstFail = now
			}
		case errors.Is(err, match.ErrSeqGap) && !w.firstFail.IsZero():
			w.mu.Unlock()
			w.repair(seq)
			continue
		default:
			w.bad = append(w.bad, fmt.Errorf("seq %d: %w", seq, err))
		}
		w.mu.Unlock()
	}
}

// repair writes back the acknowledged entries before seq that the log
// lost, and counts them.
func (w *failoverWriter) repair(seq int) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	log, err := w.s.Log(ctx, w.round, w.player)
	if err != nil && !errors.Is(err, match.ErrNotFound) {
		return // the next append tries again
	}
	w.mu.Lock()
	if w.lost == nil {
		w.lost = map[int]bool{}
	}
	for i := len(log) + 1; i < seq; i++ {
		w.lost[i] = true
	}
	w.mu.Unlock()
	for i := len(log) + 1; i < seq; i++ {
		if err := w.s.Append(ctx, w.round, 0, w.entry(i), standing(w.player, i)); err != nil {
			return
		}
	}
}

// TestFailover kills -9 the master of a round's slot while players' moves
// are being appended: while the slot has no master the appends fail as
// unavailable, never otherwise; once its replica has taken over they
// succeed again through the same client; and the logs hold every
// acknowledged move. The window (first failure to first success) and the
// acknowledged entries lost to asynchronous replication are logged. With
// durability "replica" none may be lost; its masters have two replicas
// each, so that the one promoted still has a replica to confirm appends.
func TestFailover(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		durability string
		replicas   int
	}{{"local", 1}, {"replica", 2}} {
		t.Run("durability="+tc.durability, func(t *testing.T) {
			t.Parallel()
			testFailover(t, tc.durability, tc.replicas)
		})
	}
}

func testFailover(t *testing.T, durability string, replicas int) {
	const players = 4 // their appends share the store's batches
	cl := redistest.StartCluster(t, 3, replicas)
	c := cl.Client(t)
	prefix := redistest.Prefix(t)
	s := redisstore.New(c, redisstore.Config{Prefix: prefix, Durability: durability})
	defer s.Close()
	ws := make([]*failoverWriter, players)
	for i := range ws {
		ws[i] = &failoverWriter{s: s, round: "r1", player: fmt.Sprintf("p%d", i)}
	}
	key := prefix + "{round:r1}:epochs"
	master, err := cl.MasterOf(key)
	if err != nil {
		t.Fatal(err)
	}

	stop := make(chan struct{})
	var wg sync.WaitGroup
	for _, w := range ws {
		wg.Go(func() { w.run(stop) })
	}
	stopped := false
	halt := func() {
		if !stopped {
			stopped = true
			close(stop)
			wg.Wait()
		}
	}
	defer halt()
	each := func(cond func(w *failoverWriter) bool) func() bool {
		return func() bool {
			for _, w := range ws {
				w.mu.Lock()
				ok := cond(w)
				w.mu.Unlock()
				if !ok {
					return false
				}
			}
			return true
		}
	}
	waitFor(t, 10*time.Second, "100 appends of each player before the kill",
		each(func(w *failoverWriter) bool { return w.acked.Load() >= 100 }))

	killed := time.Now()
	cl.Kill(master)
	ackedAtKill := 0
	for _, w := range ws {
		ackedAtKill += int(w.acked.Load())
	}
	promoted := cl.WaitNewMaster(t, key, master)
	promotedAfter := time.Since(killed)
	waitFor(t, 20*time.Second, "50 appends of each player after the failover",
		each(func(w *failoverWriter) bool { return w.backAfter >= 50 }))
	halt()

	var firstFail, firstBack time.Time
	unavailable, lost := 0, 0
	for _, w := range ws {
		for _, err := range w.bad {
			t.Errorf("%s: an append failed with %v, want an error matching match.ErrUnavailable", w.player, err)
		}
		if w.unavailable == 0 {
			t.Errorf("%s: no append failed while the slot had no master", w.player)
			continue
		}
		if !w.firstBack.After(w.firstFail) {
			t.Fatalf("%s: no append succeeded after the first failure at %v", w.player, w.firstFail)
		}
		if firstFail.IsZero() || w.firstFail.Before(firstFail) {
			firstFail = w.firstFail
		}
		if firstBack.IsZero() || w.firstBack.Before(firstBack) {
			firstBack = w.firstBack
		}
		unavailable += w.unavailable
		lost += len(w.lost)
		// Every acknowledged entry is in the log, those lost and written
		// back included, each once and in order.
		acked := int(w.acked.Load())
		log, err := s.Log(context.Background(), w.round, w.player)
		if err != nil {
			t.Fatal(err)
		}
		if len(log) != acked {
			t.Fatalf("%s: the log holds %d entries, %d were acknowledged", w.player, len(log), acked)
		}
		for i, e := range log {
			if want := w.entry(i + 1); e != want {
				t.Fatalf("%s: log entry %d = %+v, want %+v", w.player, i+1, e, want)
			}
		}
	}
	if durability == "replica" && lost > 0 {
		t.Errorf("%d acknowledged entries lost with durability replica", lost)
	}
	if t.Failed() {
		return
	}
	// The dead master, started again, rejoins as the new master's replica.
	cl.Restart(t, master)
	if m, err := cl.MasterOf(key); err != nil || m != promoted {
		t.Fatalf("after the old master's restart the slot's master is %v (%v), want %s", m, err, promoted.Addr())
	}
	if repl, err := master.Do("INFO", "replication"); err != nil || !strings.Contains(repl, "role:slave") {
		t.Fatalf("the old master after its restart: %q, %v; want a replica", repl, err)
	}
	t.Logf("failover, durability %s: window %v (first failure to first success; %d appends refused as unavailable), "+
		"new master %s agreed %v after the kill, first failure %v after it; "+
		"%d of %d entries acknowledged before the kill lost and written back; node timeout %v",
		durability, firstBack.Sub(firstFail).Round(time.Millisecond), unavailable, promoted.Addr(), promotedAfter.Round(time.Millisecond),
		firstFail.Sub(killed).Round(time.Millisecond), lost, ackedAtKill, cl.NodeTimeout())
}

// waitFor polls cond until it holds, failing the test after d.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("no %s within %v", what, d)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
