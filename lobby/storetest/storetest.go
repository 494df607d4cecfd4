// Package storetest holds the conformance suites of the backends: every
// implementation runs them from its own tests, so the memory backends and
// the Redis ones keep one contract. Run is the suite of match.Store:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) match.Store { return memstore.New() })
//	}
//
// Every subtest runs in parallel with the others and uses round ids of its
// own, so a factory may hand all of them one shared store.
//
// RunCoord (coord.go) is the suite of match.Coord and lobby.Coord; its
// factory must give each subtest a Coord of its own. RunSessions
// (sessions.go) is the suite of lobby.Sessions, RunPlayers (players.go)
// of lobby.Players, RunChallenges (challenges.go) of
// lobby/challenge.Store, RunRecords (records.go) of
// lobby/challenge.RecordStore and RunAllowances (allowances.go) of
// lobby.Allowances.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"klondike/engine"
	"klondike/match"
)

// Run runs the conformance suite; newStore returns the store a subtest uses.
func Run(t *testing.T, newStore func(t *testing.T) match.Store) {
	t.Helper()
	var runID atomic.Int64
	stamp := time.Now().UnixNano()
	tests := []struct {
		name string
		fn   func(t *testing.T, h *harness)
	}{
		{"AppendInOrder", testAppendInOrder},
		{"LogIsACopy", testLogIsACopy},
		{"StandingsFromAppendAndSetStanding", testStandings},
		{"StandingRoundTripsEveryField", testStandingFields},
		{"LastStandingWins", testLastStandingWins},
		{"IdempotentRetry", testIdempotentRetry},
		{"SeqConflict", testSeqConflict},
		{"SeqGap", testSeqGap},
		{"BadSeq", testBadSeq},
		{"StaleWriter", testStaleWriter},
		{"EpochsArePerPlayer", testEpochsPerPlayer},
		{"LargeEpochs", testLargeEpochs},
		{"NewerEpochFencesEvenWhenRefused", testNewerEpochFences},
		{"RoundsAreIsolated", testRoundIsolation},
		{"PlayersAreIsolated", testPlayerIsolation},
		{"UnusualIDsAndMoves", testUnusualIDs},
		{"NotFound", testNotFound},
		{"ConcurrentPlayers", testConcurrentPlayers},
		{"ConcurrentWritersOfOneSeq", testConcurrentOneSeq},
		{"Ping", testPing},
		{"ClaimSeat", testClaimSeat},
		{"ClaimSeatAboveAppendedEpochs", testClaimSeatAbove},
		{"ClaimSeatIsPerPlayer", testClaimSeatPerPlayer},
		{"ConcurrentClaims", testConcurrentClaims},
		{"DataLost", testDataLost},
		{"CloseRound", testCloseRound},
		{"CloseRoundFencesNoOne", testCloseRoundNoTakeOver},
		{"CloseUnknownRound", testCloseUnknownRound},
		{"CloseRoundRacingAppends", testCloseRoundRace},
		{"Keep", testKeep},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := &harness{
				t: t, s: newStore(t), ctx: context.Background(),
				prefix: fmt.Sprintf("st%x-%d-%s", stamp, runID.Add(1), tc.name),
			}
			tc.fn(t, h)
		})
	}
}

// harness carries a subtest's store and makes its round ids.
type harness struct {
	t      *testing.T
	s      match.Store
	ctx    context.Context
	prefix string
	n      int
}

// round returns a round id no other subtest or run uses.
func (h *harness) round() string {
	h.n++
	return fmt.Sprintf("%s-r%d", h.prefix, h.n)
}

func entry(seq int) match.LogEntry {
	moves := []string{"D", "W-T3", "T7-F", "T2-T5", "W-F", "T1-T4"}
	return match.LogEntry{Seq: seq, Move: moves[seq%len(moves)], AtMs: int64(seq) * 137}
}

func standing(player string, moves int) match.Standing {
	return match.Standing{
		PlayerID: player, Name: "name of " + player, Join: 1, Points: 5 * moves, Foundation: moves % 53,
		Moves: moves, Status: engine.Playing, FinishedMs: -1, ReachedMs: int64(moves) * 100,
	}
}

func (h *harness) append(round string, epoch uint64, e match.LogEntry, st match.Standing) {
	h.t.Helper()
	if err := h.s.Append(h.ctx, round, epoch, e, st); err != nil {
		h.t.Fatalf("Append(%s, epoch %d, seq %d, %s): %v", round, epoch, e.Seq, st.PlayerID, err)
	}
}

// appendN appends entries 1..n for player at epoch 0 and returns them.
func (h *harness) appendN(round, player string, n int) []match.LogEntry {
	h.t.Helper()
	var log []match.LogEntry
	for i := 1; i <= n; i++ {
		e := entry(i)
		h.append(round, 0, e, standing(player, i))
		log = append(log, e)
	}
	return log
}

func (h *harness) wantLog(round, player string, want []match.LogEntry) {
	h.t.Helper()
	got, err := h.s.Log(h.ctx, round, player)
	if err != nil {
		h.t.Fatalf("Log(%s, %s): %v", round, player, err)
	}
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !slices.Equal(got, want) {
		h.t.Fatalf("Log(%s, %s):\n got %v\nwant %v", round, player, got, want)
	}
}

// wantStandings checks the round's standings as a set.
func (h *harness) wantStandings(round string, want ...match.Standing) {
	h.t.Helper()
	got, err := h.s.Standings(h.ctx, round)
	if err != nil {
		h.t.Fatalf("Standings(%s): %v", round, err)
	}
	byID := func(a, b match.Standing) int { return strings.Compare(a.PlayerID, b.PlayerID) }
	got, want = slices.Clone(got), slices.Clone(want)
	slices.SortFunc(got, byID)
	slices.SortFunc(want, byID)
	if !slices.Equal(got, want) {
		h.t.Fatalf("Standings(%s):\n got %+v\nwant %+v", round, got, want)
	}
}

func (h *harness) wantErr(what string, err, want error) {
	h.t.Helper()
	if !errors.Is(err, want) {
		h.t.Fatalf("%s: got error %v, want %v", what, err, want)
	}
}

func testAppendInOrder(t *testing.T, h *harness) {
	r := h.round()
	want := h.appendN(r, "p1", 25)
	h.wantLog(r, "p1", want)
	h.wantStandings(r, standing("p1", 25))
}

func testLogIsACopy(t *testing.T, h *harness) {
	r := h.round()
	want := h.appendN(r, "p1", 3)
	got, err := h.s.Log(h.ctx, r, "p1")
	if err != nil {
		t.Fatal(err)
	}
	got[0].Move = "changed by the caller"
	h.wantLog(r, "p1", want)
}

func testStandings(t *testing.T, h *harness) {
	r := h.round()
	seated := standing("p1", 0)
	seated.Join = 0
	if err := h.s.SetStanding(h.ctx, r, seated); err != nil {
		t.Fatalf("SetStanding: %v", err)
	}
	h.wantStandings(r, seated)
	h.appendN(r, "p2", 2)
	h.wantStandings(r, seated, standing("p2", 2))
	// A seat without a move yet has an empty log in a known round.
	h.wantLog(r, "p1", nil)
}

func testStandingFields(t *testing.T, h *harness) {
	r := h.round()
	sts := []match.Standing{
		{PlayerID: "w", Name: "Wïnner ♠", Join: 3, Points: 145, Foundation: 52, Moves: 97, Status: engine.Won, FinishedMs: 123456, ReachedMs: 123456},
		{PlayerID: "s", Name: "", Join: 0, Points: -52, Foundation: 0, Moves: 0, Status: engine.Stuck, FinishedMs: 0, ReachedMs: 0},
		{PlayerID: "r", Name: `quote " and \ slash`, Join: 1, Points: 7, Foundation: 4, Moves: 12, Status: engine.Resigned, FinishedMs: 99, ReachedMs: 50},
		{PlayerID: "t", Name: "t", Join: 2, Points: 30, Foundation: 9, Moves: 40, Status: engine.TimedOut, FinishedMs: 600000, ReachedMs: 599999},
		{PlayerID: "p", Name: "p", Join: 4, Points: 0, Foundation: 1, Moves: 1, Status: engine.Playing, FinishedMs: -1, ReachedMs: 1 << 40},
	}
	for i, st := range sts {
		if i%2 == 0 {
			if err := h.s.SetStanding(h.ctx, r, st); err != nil {
				t.Fatalf("SetStanding(%+v): %v", st, err)
			}
		} else {
			h.append(r, 0, entry(1), st)
		}
	}
	h.wantStandings(r, sts...)
}

func testLastStandingWins(t *testing.T, h *harness) {
	r := h.round()
	h.appendN(r, "p1", 4)
	h.wantStandings(r, standing("p1", 4))
	resigned := standing("p1", 4)
	resigned.Status, resigned.FinishedMs = engine.Resigned, 4000
	if err := h.s.SetStanding(h.ctx, r, resigned); err != nil {
		t.Fatal(err)
	}
	h.wantStandings(r, resigned)
	// A standing set without a move then a move: the move's standing wins.
	h.append(r, 0, entry(5), standing("p1", 5))
	h.wantStandings(r, standing("p1", 5))
}

func testIdempotentRetry(t *testing.T, h *harness) {
	r := h.round()
	want := h.appendN(r, "p1", 3)
	// The last entry again, as a retry whose reply was lost; the standing it
	// carries differs, and must not replace the one stored.
	other := standing("p1", 99)
	if err := h.s.Append(h.ctx, r, 0, entry(3), other); err != nil {
		t.Fatalf("retry of the last entry: %v, want nil", err)
	}
	// An older entry again: also a retry.
	if err := h.s.Append(h.ctx, r, 0, entry(1), other); err != nil {
		t.Fatalf("retry of an older entry: %v, want nil", err)
	}
	h.wantLog(r, "p1", want)
	h.wantStandings(r, standing("p1", 3))
	// And the log goes on after it.
	h.append(r, 0, entry(4), standing("p1", 4))
	h.wantLog(r, "p1", append(want, entry(4)))
}

func testSeqConflict(t *testing.T, h *harness) {
	r := h.round()
	want := h.appendN(r, "p1", 2)
	other := standing("p1", 99)
	diffMove := entry(2)
	diffMove.Move = "T3-T4"
	diffTime := entry(2)
	diffTime.AtMs++
	for _, e := range []match.LogEntry{diffMove, diffTime, {Seq: 1, Move: "D", AtMs: 1}} {
		err := h.s.Append(h.ctx, r, 0, e, other)
		h.wantErr(fmt.Sprintf("Append(%+v) over an existing entry", e), err, match.ErrSeqConflict)
	}
	h.wantLog(r, "p1", want)
	h.wantStandings(r, standing("p1", 2))
}

func testSeqGap(t *testing.T, h *harness) {
	r := h.round()
	h.appendN(r, "p0", 1) // the round exists
	err := h.s.Append(h.ctx, r, 0, entry(2), standing("p1", 2))
	h.wantErr("Append(seq 2) to an empty log", err, match.ErrSeqGap)
	want := h.appendN(r, "p1", 2)
	err = h.s.Append(h.ctx, r, 0, entry(5), standing("p1", 5))
	h.wantErr("Append(seq 5) to a log of 2", err, match.ErrSeqGap)
	h.wantLog(r, "p1", want)
	h.wantStandings(r, standing("p0", 1), standing("p1", 2))
}

func testBadSeq(t *testing.T, h *harness) {
	r := h.round()
	want := h.appendN(r, "p1", 1)
	for _, seq := range []int{0, -1, math.MinInt32} {
		e := entry(1)
		e.Seq = seq
		err := h.s.Append(h.ctx, r, 0, e, standing("p1", 9))
		if err == nil || errors.Is(err, match.ErrUnavailable) {
			t.Fatalf("Append(seq %d): %v, want a refusal", seq, err)
		}
	}
	h.wantLog(r, "p1", want)
	h.wantStandings(r, standing("p1", 1))
}

func testStaleWriter(t *testing.T, h *harness) {
	r := h.round()
	h.append(r, 2, entry(1), standing("p1", 1))
	err := h.s.Append(h.ctx, r, 1, entry(2), standing("p1", 2))
	h.wantErr("Append at an older epoch", err, match.ErrStaleWriter)
	// Even a retry of an entry that is in the log: the old writer is out.
	err = h.s.Append(h.ctx, r, 1, entry(1), standing("p1", 1))
	h.wantErr("retry at an older epoch", err, match.ErrStaleWriter)
	h.wantLog(r, "p1", []match.LogEntry{entry(1)})
	h.wantStandings(r, standing("p1", 1))

	// The same epoch goes on; a newer one takes over; then the previous is out.
	h.append(r, 2, entry(2), standing("p1", 2))
	h.append(r, 3, entry(3), standing("p1", 3))
	err = h.s.Append(h.ctx, r, 2, entry(4), standing("p1", 4))
	h.wantErr("Append at the epoch taken over", err, match.ErrStaleWriter)
	h.append(r, 3, entry(4), standing("p1", 4))
	h.wantLog(r, "p1", []match.LogEntry{entry(1), entry(2), entry(3), entry(4)})
	h.wantStandings(r, standing("p1", 4))
}

func testEpochsPerPlayer(t *testing.T, h *harness) {
	r := h.round()
	h.append(r, 7, entry(1), standing("p1", 1))
	h.append(r, 0, entry(1), standing("p2", 1)) // p1's epoch does not fence p2
	h.append(r, 0, entry(2), standing("p2", 2))
	err := h.s.Append(h.ctx, r, 6, entry(2), standing("p1", 2))
	h.wantErr("p1 at an older epoch", err, match.ErrStaleWriter)
	r2 := h.round()
	h.append(r2, 0, entry(1), standing("p1", 1)) // nor p1 in another round
}

func testLargeEpochs(t *testing.T, h *harness) {
	// Epochs differ in their last bits only: a store that kept them as
	// floating-point numbers would take them for equal.
	r := h.round()
	big := uint64(1)<<60 + 1
	h.append(r, big, entry(1), standing("p1", 1))
	err := h.s.Append(h.ctx, r, big-1, entry(2), standing("p1", 2))
	h.wantErr("Append at 2⁶⁰", err, match.ErrStaleWriter)
	h.append(r, math.MaxUint64, entry(2), standing("p1", 2))
	err = h.s.Append(h.ctx, r, math.MaxUint64-1, entry(3), standing("p1", 3))
	h.wantErr("Append at 2⁶⁴−2", err, match.ErrStaleWriter)
	h.append(r, math.MaxUint64, entry(3), standing("p1", 3))
	h.wantLog(r, "p1", []match.LogEntry{entry(1), entry(2), entry(3)})
}

// A newer writer takes the log over on its first append even when that
// append is refused: the old writer is fenced as soon as the new one shows.
func testNewerEpochFences(t *testing.T, h *harness) {
	r := h.round()
	h.appendN(r, "p1", 2)
	err := h.s.Append(h.ctx, r, 1, entry(9), standing("p1", 9))
	h.wantErr("newer writer with a gap", err, match.ErrSeqGap)
	err = h.s.Append(h.ctx, r, 0, entry(3), standing("p1", 3))
	h.wantErr("the old writer after the take-over", err, match.ErrStaleWriter)
	h.append(r, 1, entry(3), standing("p1", 3))
	h.wantStandings(r, standing("p1", 3))
}

func testRoundIsolation(t *testing.T, h *harness) {
	r1, r2 := h.round(), h.round()
	w1 := h.appendN(r1, "p1", 3)
	w2 := h.appendN(r2, "p1", 5)
	h.wantLog(r1, "p1", w1)
	h.wantLog(r2, "p1", w2)
	h.wantStandings(r1, standing("p1", 3))
	h.wantStandings(r2, standing("p1", 5))
	// A round id that extends another is still another round.
	r3 := r1 + "x"
	_, err := h.s.Standings(h.ctx, r3)
	h.wantErr("Standings of a round whose id extends a known one", err, match.ErrNotFound)
}

func testPlayerIsolation(t *testing.T, h *harness) {
	r := h.round()
	w1 := h.appendN(r, "p1", 3)
	w2 := h.appendN(r, "p2", 1)
	h.append(r, 0, entry(4), standing("p1", 4))
	w1 = append(w1, entry(4))
	h.wantLog(r, "p1", w1)
	h.wantLog(r, "p2", w2)
	// A player whose id extends another's has a log of its own.
	h.wantLog(r, "p", nil)
	h.wantLog(r, "p11", nil)
	h.wantStandings(r, standing("p1", 4), standing("p2", 1))
}

func testUnusualIDs(t *testing.T, h *harness) {
	r := h.round() + ":{odd}|id ♣"
	players := []string{"a|b", "c:d", "{e}", "f g", "Ünï ♥", strings.Repeat("x", 200)}
	for i, p := range players {
		e := match.LogEntry{Seq: 1, Move: fmt.Sprintf("mv|%d:{x}", i), AtMs: int64(i)}
		st := standing(p, 1)
		st.Join = i
		h.append(r, 0, e, st)
		h.wantLog(r, p, []match.LogEntry{e})
		if err := h.s.Append(h.ctx, r, 0, e, st); err != nil {
			t.Fatalf("retry for %q: %v", p, err)
		}
	}
	got, err := h.s.Standings(h.ctx, r)
	if err != nil || len(got) != len(players) {
		t.Fatalf("Standings: %d standings, %v; want %d", len(got), err, len(players))
	}
}

func testNotFound(t *testing.T, h *harness) {
	r := h.round()
	_, err := h.s.Log(h.ctx, r, "p1")
	h.wantErr("Log of an unknown round", err, match.ErrNotFound)
	_, err = h.s.Standings(h.ctx, r)
	h.wantErr("Standings of an unknown round", err, match.ErrNotFound)
	h.appendN(r, "p1", 1)
	h.wantLog(r, "nobody", nil)
	_, err = h.s.Log(h.ctx, h.round(), "p1")
	h.wantErr("Log of another unknown round", err, match.ErrNotFound)
}

func testConcurrentPlayers(t *testing.T, h *harness) {
	const players, moves = 8, 200
	r := h.round()
	errs := make(chan error, players)
	var wg sync.WaitGroup
	for p := range players {
		wg.Go(func() {
			id := fmt.Sprintf("p%d", p)
			for i := 1; i <= moves; i++ {
				if err := h.s.Append(h.ctx, r, 0, entry(i), standing(id, i)); err != nil {
					errs <- fmt.Errorf("%s seq %d: %w", id, i, err)
					return
				}
				if i%50 == 0 { // a retry now and then
					if err := h.s.Append(h.ctx, r, 0, entry(i), standing(id, i)); err != nil {
						errs <- fmt.Errorf("%s retry of seq %d: %w", id, i, err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	var want []match.LogEntry
	for i := 1; i <= moves; i++ {
		want = append(want, entry(i))
	}
	var sts []match.Standing
	for p := range players {
		id := fmt.Sprintf("p%d", p)
		h.wantLog(r, id, want)
		sts = append(sts, standing(id, moves))
	}
	h.wantStandings(r, sts...)
}

// Two writers at the same epoch race for every seq of one log: each seq goes
// to exactly one of them, and the other gets ErrSeqConflict.
func testConcurrentOneSeq(t *testing.T, h *harness) {
	const n = 100
	r := h.round()
	won := make([][]int, 2)
	errs := make(chan error, 2)
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Go(func() {
			for seq := 1; seq <= n; seq++ {
				e := match.LogEntry{Seq: seq, Move: fmt.Sprintf("w%d", w), AtMs: int64(seq)}
				err := h.s.Append(h.ctx, r, 0, e, standing("p1", seq))
				switch {
				case err == nil:
					won[w] = append(won[w], seq)
				case errors.Is(err, match.ErrSeqConflict):
				default:
					errs <- fmt.Errorf("writer %d seq %d: %w", w, seq, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if len(won[0])+len(won[1]) != n {
		t.Fatalf("writers won %d and %d seqs, want %d in all", len(won[0]), len(won[1]), n)
	}
	log, err := h.s.Log(h.ctx, r, "p1")
	if err != nil || len(log) != n {
		t.Fatalf("Log: %d entries, %v; want %d", len(log), err, n)
	}
	for w := range 2 {
		for _, seq := range won[w] {
			if got := log[seq-1]; got.Seq != seq || got.Move != fmt.Sprintf("w%d", w) {
				t.Fatalf("seq %d won by writer %d, log has %+v", seq, w, got)
			}
		}
	}
}

func testPing(t *testing.T, h *harness) {
	ctx, cancel := context.WithTimeout(h.ctx, 5*time.Second)
	defer cancel()
	if err := h.s.Ping(ctx); err != nil {
		t.Fatalf("Ping: %v", err)
	}
}
