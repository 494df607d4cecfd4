package storetest

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"testing"
	"time"

	"klondike/engine"
	"klondike/match"
)

func (h *harness) claim(round, player string) uint64 {
	h.t.Helper()
	epoch, err := h.s.ClaimSeat(h.ctx, round, player)
	if err != nil {
		h.t.Fatalf("ClaimSeat(%s, %s): %v", round, player, err)
	}
	return epoch
}

func testClaimSeat(t *testing.T, h *harness) {
	r := h.round()
	e1 := h.claim(r, "p1")
	if e1 == 0 {
		t.Fatal("ClaimSeat of a new seat gave epoch 0, the epoch of writers that never claimed")
	}
	// A claimed seat of a round without a move is a known round with an
	// empty log.
	h.wantLog(r, "p1", nil)
	h.append(r, e1, entry(1), standing("p1", 1))
	err := h.s.Append(h.ctx, r, 0, entry(2), standing("p1", 2))
	h.wantErr("Append at epoch 0 after a claim", err, match.ErrStaleWriter)

	// Another node takes the seat over: the first writer is out at once,
	// before the new one appended anything.
	e2 := h.claim(r, "p1")
	if e2 <= e1 {
		t.Fatalf("second claim gave %d, not newer than %d", e2, e1)
	}
	err = h.s.Append(h.ctx, r, e1, entry(2), standing("p1", 2))
	h.wantErr("Append at the epoch claimed over", err, match.ErrStaleWriter)
	err = h.s.Append(h.ctx, r, e1, entry(1), standing("p1", 1))
	h.wantErr("retry at the epoch claimed over", err, match.ErrStaleWriter)
	// The new writer goes on with the same log.
	h.append(r, e2, entry(2), standing("p1", 2))
	h.wantLog(r, "p1", []match.LogEntry{entry(1), entry(2)})
	h.wantStandings(r, standing("p1", 2))
}

// Claims go on from whatever epoch appends brought the log to, across
// decimal carries and past 2⁶³ (where a signed 64-bit counter stops), up
// to 2⁶⁴−1, beyond which a claim fails without changing anything.
func testClaimSeatAbove(t *testing.T, h *harness) {
	r := h.round()
	seq := 0
	for _, at := range []uint64{5, 9, 99, 1999, 1 << 53, 1<<60 + 1, math.MaxInt64, 1<<63 + 9, math.MaxUint64 - 1} {
		seq++
		h.append(r, at, entry(seq), standing("p1", seq))
		got := h.claim(r, "p1")
		if got != at+1 {
			t.Fatalf("ClaimSeat after an append at %d: %d, want %d", at, got, at+1)
		}
		err := h.s.Append(h.ctx, r, at, entry(seq+1), standing("p1", seq+1))
		h.wantErr(fmt.Sprintf("Append at %d after the claim of %d", at, got), err, match.ErrStaleWriter)
	}
	// The epoch is 2⁶⁴−1 now: no claim can be newer.
	epoch, err := h.s.ClaimSeat(h.ctx, r, "p1")
	if err == nil || errors.Is(err, match.ErrUnavailable) {
		t.Fatalf("ClaimSeat at 2⁶⁴−1: %d, %v; want a refusal", epoch, err)
	}
	seq++
	h.append(r, math.MaxUint64, entry(seq), standing("p1", seq))
	h.wantStandings(r, standing("p1", seq))
}

func testClaimSeatPerPlayer(t *testing.T, h *harness) {
	r, r2 := h.round(), h.round()
	h.claim(r, "p1")
	h.claim(r, "p1")
	h.appendN(r, "p2", 2)  // p1's claims fence no one else
	h.appendN(r2, "p1", 2) // nor p1 in another round
	if e := h.claim(r, "p2"); e != 1 {
		t.Fatalf("first claim of p2 after appends at epoch 0: %d, want 1", e)
	}
	if e := h.claim(r, "p1"); e != 3 {
		t.Fatalf("third claim of p1: %d, want 3", e)
	}
}

// Claims racing each other each get an epoch of their own.
func testConcurrentClaims(t *testing.T, h *harness) {
	const workers, each = 8, 25
	r := h.round()
	got := make([][]uint64, workers)
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for range each {
				e, err := h.s.ClaimSeat(h.ctx, r, "p1")
				if err != nil {
					errs <- err
					return
				}
				got[w] = append(got[w], e)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	all := slices.Concat(got...)
	slices.Sort(all)
	if n := len(slices.Compact(slices.Clone(all))); n != len(all) {
		t.Fatalf("%d claims gave %d distinct epochs", len(all), n)
	}
	for w := range workers {
		if !slices.IsSorted(got[w]) {
			t.Fatalf("one caller's claims went down: %v", got[w])
		}
	}
	last := all[len(all)-1]
	err := h.s.Append(h.ctx, r, last-1, entry(1), standing("p1", 1))
	h.wantErr("Append at the last epoch but one", err, match.ErrStaleWriter)
	h.append(r, last, entry(1), standing("p1", 1))
}

func testCloseRound(t *testing.T, h *harness) {
	r := h.round()
	log := h.appendN(r, "p1", 3)
	h.appendN(r, "p2", 1)
	other := h.round()
	h.appendN(other, "p1", 1)
	if err := h.s.CloseRound(h.ctx, r); err != nil {
		t.Fatalf("CloseRound: %v", err)
	}
	if err := h.s.CloseRound(h.ctx, r); err != nil {
		t.Fatalf("CloseRound again: %v", err)
	}
	refused := []struct {
		what   string
		player string
		e      match.LogEntry
	}{
		{"the next entry", "p1", entry(4)},
		{"a different entry at a used seq", "p1", match.LogEntry{Seq: 3, Move: "T1-T2", AtMs: 1}},
		{"an entry beyond the next", "p1", entry(7)},
		{"a player without a log", "p3", entry(1)},
	}
	for _, c := range refused {
		err := h.s.Append(h.ctx, r, 0, c.e, standing(c.player, 99))
		h.wantErr("Append of "+c.what+" to a closed round", err, match.ErrRoundClosed)
	}
	// Retries of moves accepted before the close still answer as retries.
	for _, seq := range []int{3, 1} {
		if err := h.s.Append(h.ctx, r, 0, entry(seq), standing("p1", 99)); err != nil {
			t.Fatalf("retry of seq %d in a closed round: %v, want nil", seq, err)
		}
	}
	// A stale writer is still told so (a seat can be claimed in a closed
	// round: a node rebuilding it to show the game).
	h.claim(r, "p2")
	err := h.s.Append(h.ctx, r, 0, entry(1), standing("p2", 1))
	h.wantErr("a stale writer's retry in a closed round", err, match.ErrStaleWriter)

	h.wantLog(r, "p1", log)
	h.wantStandings(r, standing("p1", 3), standing("p2", 1))
	// SetStanding still works: the round's end times games out.
	timedOut := standing("p1", 3)
	timedOut.Status, timedOut.FinishedMs = engine.TimedOut, 600000
	if err := h.s.SetStanding(h.ctx, r, timedOut); err != nil {
		t.Fatalf("SetStanding in a closed round: %v", err)
	}
	h.wantStandings(r, timedOut, standing("p2", 1))
	// Other rounds go on.
	h.append(other, 0, entry(2), standing("p1", 2))
}

// A newer writer's append to a closed round is refused without taking the
// log over: the round's writers stay as they were at the close.
func testCloseRoundNoTakeOver(t *testing.T, h *harness) {
	r := h.round()
	h.appendN(r, "p1", 2)
	if err := h.s.CloseRound(h.ctx, r); err != nil {
		t.Fatal(err)
	}
	err := h.s.Append(h.ctx, r, 7, entry(3), standing("p1", 3))
	h.wantErr("a newer writer in a closed round", err, match.ErrRoundClosed)
	if err := h.s.Append(h.ctx, r, 0, entry(2), standing("p1", 2)); err != nil {
		t.Fatalf("retry at epoch 0 after a newer writer was refused: %v, want nil", err)
	}
	h.wantLog(r, "p1", []match.LogEntry{entry(1), entry(2)})
}

// Closing a round the store does not know is allowed, and it stays closed.
func testCloseUnknownRound(t *testing.T, h *harness) {
	r := h.round()
	for range 2 {
		if err := h.s.CloseRound(h.ctx, r); err != nil {
			t.Fatalf("CloseRound of an unknown round: %v", err)
		}
	}
	err := h.s.Append(h.ctx, r, 0, entry(1), standing("p1", 1))
	h.wantErr("Append to a round closed before any move", err, match.ErrRoundClosed)
	_, err = h.s.Log(h.ctx, r, "p1")
	h.wantErr("Log of a round that only was closed", err, match.ErrNotFound)
	_, err = h.s.Standings(h.ctx, r)
	h.wantErr("Standings of a round that only was closed", err, match.ErrNotFound)
}

// Appends racing the close are either in the log or refused with
// ErrRoundClosed, never half counted, and none is accepted once CloseRound
// returned.
func testCloseRoundRace(t *testing.T, h *harness) {
	const players = 4
	r := h.round()
	var (
		mu       sync.Mutex
		accepted = map[string]int{}
		closedAt time.Time
	)
	errs := make(chan error, players+1)
	var wg sync.WaitGroup
	for p := range players {
		wg.Go(func() {
			id := fmt.Sprintf("p%d", p)
			deadline := time.Now().Add(10 * time.Second)
			for seq := 1; time.Now().Before(deadline); seq++ {
				start := time.Now()
				err := h.s.Append(h.ctx, r, 0, entry(seq), standing(id, seq))
				if errors.Is(err, match.ErrRoundClosed) {
					return
				}
				if err != nil {
					errs <- fmt.Errorf("%s seq %d: %w", id, seq, err)
					return
				}
				mu.Lock()
				accepted[id] = seq
				late := !closedAt.IsZero() && start.After(closedAt)
				mu.Unlock()
				if late {
					errs <- fmt.Errorf("%s seq %d accepted after CloseRound returned", id, seq)
					return
				}
			}
			errs <- fmt.Errorf("%s: the round did not close in 10 s", id)
		})
	}
	wg.Go(func() {
		time.Sleep(20 * time.Millisecond)
		if err := h.s.CloseRound(h.ctx, r); err != nil {
			errs <- fmt.Errorf("CloseRound: %w", err)
		}
		mu.Lock()
		closedAt = time.Now()
		mu.Unlock()
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	var sts []match.Standing
	for p := range players {
		id := fmt.Sprintf("p%d", p)
		var want []match.LogEntry
		for seq := 1; seq <= accepted[id]; seq++ {
			want = append(want, entry(seq))
		}
		h.wantLog(r, id, want)
		if accepted[id] > 0 {
			sts = append(sts, standing(id, accepted[id]))
		}
	}
	if len(sts) > 0 {
		h.wantStandings(r, sts...)
	}
}

// Keep changes nothing a reader sees, and a round without data is nothing
// to keep.
func testKeep(t *testing.T, h *harness) {
	r := h.round()
	if err := h.s.Keep(h.ctx, r, time.Now().Add(time.Hour)); err != nil {
		t.Fatalf("Keep of an unknown round: %v", err)
	}
	log := h.appendN(r, "p1", 3)
	if err := h.s.CloseRound(h.ctx, r); err != nil {
		t.Fatal(err)
	}
	if err := h.s.Keep(h.ctx, r, time.Now().Add(time.Hour)); err != nil {
		t.Fatalf("Keep: %v", err)
	}
	h.wantLog(r, "p1", log)
	err := h.s.Append(h.ctx, r, 0, entry(4), standing("p1", 4))
	h.wantErr("Append after Keep of a closed round", err, match.ErrRoundClosed)
}

// A claimed writer (epoch above 0) whose epoch the store does not have
// appends past the first entry only to a store that lost the round: it
// gets ErrDataLost and nothing is written, not even its epoch. A first
// entry, or a writer that never claimed (epoch 0), goes on as before.
func testDataLost(t *testing.T, h *harness) {
	r := h.round()
	err := h.s.Append(h.ctx, r, 3, entry(2), standing("p1", 2))
	h.wantErr("Append(seq 2) by a claimed writer to a round the store does not have", err, match.ErrDataLost)
	_, err = h.s.Log(h.ctx, r, "p1")
	h.wantErr("Log after the refused append", err, match.ErrNotFound)
	_, err = h.s.Standings(h.ctx, r)
	h.wantErr("Standings after the refused append", err, match.ErrNotFound)

	// In a round the store has, a player it has no epoch for.
	e1 := h.claim(r, "p1")
	h.append(r, e1, entry(1), standing("p1", 1))
	err = h.s.Append(h.ctx, r, 5, entry(4), standing("p2", 4))
	h.wantErr("Append(seq 4) by a claimed writer of a player without an epoch", err, match.ErrDataLost)
	h.wantLog(r, "p2", nil)
	h.wantStandings(r, standing("p1", 1))
	// Its epoch was not written: an older one still appends.
	h.append(r, 1, entry(1), standing("p2", 1))
	// A claimed seat whose log the store lost in part is a gap, for the
	// seat to write back (the store kept its epoch).
	e2 := h.claim(r, "p2")
	err = h.s.Append(h.ctx, r, e2, entry(3), standing("p2", 3))
	h.wantErr("Append(seq 3) by a known writer to a log of 1", err, match.ErrSeqGap)

	// A first entry takes a log the store lost; a writer that never
	// claimed gets a gap, as ever.
	r2 := h.round()
	h.append(r2, 7, entry(1), standing("p1", 1))
	err = h.s.Append(h.ctx, r2, 0, entry(2), standing("p2", 2))
	h.wantErr("Append(seq 2) at epoch 0 to an empty log", err, match.ErrSeqGap)

	// A closed round answers as closed first.
	r3 := h.round()
	if err := h.s.CloseRound(h.ctx, r3); err != nil {
		t.Fatal(err)
	}
	err = h.s.Append(h.ctx, r3, 4, entry(2), standing("p1", 2))
	h.wantErr("Append(seq 2) by a claimed writer to a closed round", err, match.ErrRoundClosed)
}
