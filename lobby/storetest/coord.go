package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"klondike/lobby"
	"klondike/match"
)

// RunCoord runs the conformance suite of a Coord, every method of
// match.Coord and lobby.Coord; newCoord returns the Coord a subtest uses.
// Subtests run in parallel, and each needs a Coord whose state no other
// subtest shares (a new memory Coord, or a Redis Coord with a key prefix of
// its own): they check the whole list of open matches, the data epoch and
// every message on the bus.
//
//	func TestCoordConformance(t *testing.T) {
//		storetest.RunCoord(t, func(*testing.T) lobby.Coord { return memstore.NewCoord() })
//	}
func RunCoord(t *testing.T, newCoord func(t *testing.T) lobby.Coord) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(t *testing.T, h *coordHarness)
	}{
		{"MatchCompareAndSet", testMatchCAS},
		{"MatchRecordBytes", testMatchBytes},
		{"ConcurrentSavers", testConcurrentSavers},
		{"MatchExpires", testMatchExpires},
		{"OpenMatches", testOpenMatches},
		{"OpenMatchesLimit", testOpenMatchesLimit},
		{"OpenMatchesPaging", testOpenMatchesPaging},
		{"OpenMatchesPlacesGrow", testOpenMatchesPlacesGrow},
		{"OpenMatchesPagingChanges", testOpenMatchesPagingChanges},
		{"OpenMatchExpires", testOpenMatchExpires},
		{"Codes", testCodes},
		{"ConcurrentCodeClaims", testConcurrentCodeClaims},
		{"CodeExpires", testCodeExpires},
		{"PlayerMatch", testPlayerMatch},
		{"Rounds", testRounds},
		{"PublishSubscribe", testPubSub},
		{"PublishersKeepTheirOrder", testPublishersOrder},
		{"SubscribeStopsWithContext", testSubscribeStops},
		{"Lease", testLease},
		{"LeaseRenewal", testLeaseRenewal},
		{"ConcurrentLeaseTakers", testConcurrentLease},
		{"NodeLiveness", testNodeLiveness},
		{"LeaseOfANodeNotLive", testLeaseOfNodeNotLive},
		{"DataEpoch", testDataEpoch},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			t.Cleanup(cancel)
			tc.fn(t, &coordHarness{t: t, c: newCoord(t), ctx: ctx})
		})
	}
}

// coordHarness carries a subtest's Coord.
type coordHarness struct {
	t   *testing.T
	c   lobby.Coord
	ctx context.Context
}

const long = time.Hour // a TTL no test outlives

func (h *coordHarness) save(id string, prev int64, rec string, open bool) int64 {
	h.t.Helper()
	v, err := h.c.SaveMatch(h.ctx, id, prev, []byte(rec), open, long)
	if err != nil {
		h.t.Fatalf("SaveMatch(%s, %d, %q, %v): %v", id, prev, rec, open, err)
	}
	if v != prev+1 {
		h.t.Fatalf("SaveMatch(%s, %d, %q): version %d, want %d", id, prev, rec, v, prev+1)
	}
	return v
}

func (h *coordHarness) wantMatch(id string, rec string, version int64) {
	h.t.Helper()
	got, v, err := h.c.LoadMatch(h.ctx, id)
	if err != nil || string(got) != rec || v != version {
		h.t.Fatalf("LoadMatch(%s) = %q, %d, %v; want %q, %d", id, got, v, err, rec, version)
	}
	if v, err := h.c.MatchVersion(h.ctx, id); err != nil || v != version {
		h.t.Fatalf("MatchVersion(%s) = %d, %v; want %d", id, v, err, version)
	}
}

// open returns the ids and places OpenMatches(after, limit) gives, and
// fails the test unless the places grow and are all above after.
func (h *coordHarness) open(after int64, limit int) (ids []string, seqs []int64) {
	h.t.Helper()
	got, err := h.c.OpenMatches(h.ctx, after, limit)
	if err != nil {
		h.t.Fatalf("OpenMatches(%d, %d): %v", after, limit, err)
	}
	if limit > 0 && len(got) > limit {
		h.t.Fatalf("OpenMatches(%d, %d) = %v: more than the limit", after, limit, got)
	}
	last := after
	for _, m := range got {
		if m.Seq <= last || m.Seq < 1 {
			h.t.Fatalf("OpenMatches(%d, %d) = %v: places not growing from %d", after, limit, got, after)
		}
		last = m.Seq
		ids = append(ids, m.ID)
		seqs = append(seqs, m.Seq)
	}
	return ids, seqs
}

func (h *coordHarness) wantOpen(want ...string) {
	h.t.Helper()
	got, _ := h.open(0, 0)
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !slices.Equal(got, want) {
		h.t.Fatalf("OpenMatches = %q, want %q", got, want)
	}
}

// seqOf returns the place of an open match on the list.
func (h *coordHarness) seqOf(id string) int64 {
	h.t.Helper()
	ids, seqs := h.open(0, 0)
	i := slices.Index(ids, id)
	if i < 0 {
		h.t.Fatalf("%s is not on the open list %q", id, ids)
	}
	return seqs[i]
}

// eventually polls cond every 20 ms for up to 5 s.
func (h *coordHarness) eventually(what string, cond func() bool) {
	h.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			h.t.Fatalf("%s: not within 5 s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func testMatchCAS(t *testing.T, h *coordHarness) {
	_, _, err := h.c.LoadMatch(h.ctx, "m1")
	if !errors.Is(err, match.ErrNotFound) {
		t.Fatalf("LoadMatch of an unknown match: %v, want ErrNotFound", err)
	}
	if _, err := h.c.MatchVersion(h.ctx, "m1"); !errors.Is(err, match.ErrNotFound) {
		t.Fatalf("MatchVersion of an unknown match: %v, want ErrNotFound", err)
	}
	if _, err := h.c.SaveMatch(h.ctx, "m1", 1, []byte("x"), false, long); !errors.Is(err, match.ErrVersionConflict) {
		t.Fatalf("SaveMatch at version 1 of an unknown match: %v, want ErrVersionConflict", err)
	}
	h.save("m1", 0, "one", false)
	h.wantMatch("m1", "one", 1)
	for _, prev := range []int64{0, 2, 5, -1} {
		if _, err := h.c.SaveMatch(h.ctx, "m1", prev, []byte("other"), true, long); !errors.Is(err, match.ErrVersionConflict) {
			t.Fatalf("SaveMatch from version %d of a match at 1: %v, want ErrVersionConflict", prev, err)
		}
	}
	h.wantMatch("m1", "one", 1)
	h.wantOpen() // a refused save does not open the match
	h.save("m1", 1, "two", false)
	h.wantMatch("m1", "two", 2)

	// The same save again (a resend after a lost reply) answers the same
	// version; a different record from that version is a conflict.
	if v, err := h.c.SaveMatch(h.ctx, "m1", 1, []byte("two"), false, long); err != nil || v != 2 {
		t.Fatalf("the same save again: %d, %v; want 2, nil", v, err)
	}
	if _, err := h.c.SaveMatch(h.ctx, "m1", 1, []byte("three"), false, long); !errors.Is(err, match.ErrVersionConflict) {
		t.Fatalf("a different save from an old version: %v, want ErrVersionConflict", err)
	}
	h.save("m1", 2, "three", false)
	if _, err := h.c.SaveMatch(h.ctx, "m1", 1, []byte("two"), false, long); !errors.Is(err, match.ErrVersionConflict) {
		t.Fatalf("a save two versions behind: %v, want ErrVersionConflict", err)
	}
	h.wantMatch("m1", "three", 3)
	// Matches are separate.
	h.save("m2", 0, "m2", false)
	h.wantMatch("m2", "m2", 1)
	h.wantMatch("m1", "three", 3)
}

func testMatchBytes(t *testing.T, h *coordHarness) {
	recs := [][]byte{{}, {0, 1, 2, 0xff, '\r', '\n'}, []byte(`{"json": "with \" and ♠"}`), bytes.Repeat([]byte("x"), 1<<20)}
	for i, rec := range recs {
		id := fmt.Sprintf("m%d:{odd} ♣", i)
		in := bytes.Clone(rec)
		if _, err := h.c.SaveMatch(h.ctx, id, 0, in, false, long); err != nil {
			t.Fatalf("SaveMatch of record %d: %v", i, err)
		}
		if len(in) > 0 {
			in[0]++ // the caller's slice is its own
		}
		got, v, err := h.c.LoadMatch(h.ctx, id)
		if err != nil || v != 1 || !bytes.Equal(got, rec) {
			t.Fatalf("LoadMatch of record %d: %d bytes, version %d, %v", i, len(got), v, err)
		}
		if len(got) > 0 {
			got[0]++
			again, _, _ := h.c.LoadMatch(h.ctx, id)
			if !bytes.Equal(again, rec) {
				t.Fatalf("record %d changed with the slice LoadMatch returned", i)
			}
		}
	}
}

// Savers that read the same version race: exactly one of them wins each
// time, and the record is the winner's.
func testConcurrentSavers(t *testing.T, h *coordHarness) {
	const savers, rounds = 12, 15
	var prev int64
	for round := range rounds {
		var wins atomic.Int64
		var winner atomic.Value
		errs := make(chan error, savers)
		var wg sync.WaitGroup
		for s := range savers {
			wg.Go(func() {
				rec := fmt.Sprintf("saver %d round %d", s, round)
				v, err := h.c.SaveMatch(h.ctx, "m", prev, []byte(rec), s%2 == 0, long)
				switch {
				case err == nil:
					if v != prev+1 {
						errs <- fmt.Errorf("saver %d won with version %d, want %d", s, v, prev+1)
					}
					wins.Add(1)
					winner.Store(rec)
				case !errors.Is(err, match.ErrVersionConflict):
					errs <- fmt.Errorf("saver %d: %w", s, err)
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		if n := wins.Load(); n != 1 {
			t.Fatalf("round %d: %d savers won, want 1", round, n)
		}
		prev++
		h.wantMatch("m", winner.Load().(string), prev)
	}
}

func testMatchExpires(t *testing.T, h *coordHarness) {
	if _, err := h.c.SaveMatch(h.ctx, "m", 0, []byte("short"), false, 150*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	h.save("kept", 0, "kept", false)
	h.wantMatch("m", "short", 1)
	h.eventually("the record expires", func() bool {
		_, _, err := h.c.LoadMatch(h.ctx, "m")
		_, verr := h.c.MatchVersion(h.ctx, "m")
		return errors.Is(err, match.ErrNotFound) && errors.Is(verr, match.ErrNotFound)
	})
	// An expired match is no match: it starts again from version 0.
	h.save("m", 0, "again", false)
	h.wantMatch("m", "again", 1)
	h.wantMatch("kept", "kept", 1)
}

func testOpenMatches(t *testing.T, h *coordHarness) {
	h.wantOpen()
	a := h.save("a", 0, "a1", true)
	h.save("closed", 0, "c1", false)
	b := h.save("b", 0, "b1", true)
	c := h.save("c", 0, "c1", true)
	h.wantOpen("a", "b", "c")
	// Saved again open: it keeps its place.
	a = h.save("a", a, "a2", true)
	h.wantOpen("a", "b", "c")
	// Closed: off the list; opened again: at the end.
	b = h.save("b", b, "b2", false)
	h.wantOpen("a", "c")
	_ = h.save("b", b, "b3", true)
	h.wantOpen("a", "c", "b")
	// A refused save changes nothing.
	if _, err := h.c.SaveMatch(h.ctx, "c", c-1, []byte("stale"), false, long); !errors.Is(err, match.ErrVersionConflict) {
		t.Fatalf("stale save: %v", err)
	}
	h.wantOpen("a", "c", "b")
	// A resent save applies its open flag again.
	if v, err := h.c.SaveMatch(h.ctx, "a", a-1, []byte("a2"), true, long); err != nil || v != a {
		t.Fatalf("resent save: %d, %v", v, err)
	}
	h.wantOpen("a", "c", "b")
	h.save("a", a, "a3", false)
	h.save("c", c, "c2", false)
	h.wantOpen("b")
}

func testOpenMatchesLimit(t *testing.T, h *coordHarness) {
	var want []string
	for i := range 7 {
		id := fmt.Sprintf("m%d", i)
		h.save(id, 0, id, true)
		want = append(want, id)
	}
	for _, limit := range []int{1, 2, 6, 7, 8, 0, -1} {
		got, _ := h.open(0, limit)
		w := want
		if limit > 0 && limit < len(w) {
			w = w[:limit]
		}
		if !slices.Equal(got, w) {
			t.Fatalf("OpenMatches(0, %d) = %q, want %q", limit, got, w)
		}
	}
}

// Paging through the list, each page after the last place of the one
// before, lists every match once, in order, whatever the page size.
func testOpenMatchesPaging(t *testing.T, h *coordHarness) {
	var want []string
	for i := range 7 {
		id := fmt.Sprintf("m%d", i)
		h.save(id, 0, id, true)
		want = append(want, id)
	}
	all, seqs := h.open(0, 0)
	if !slices.Equal(all, want) {
		t.Fatalf("OpenMatches(0, 0) = %q, want %q", all, want)
	}
	for _, limit := range []int{1, 2, 3, 7, 8} {
		var got []string
		var after int64
		for range len(want) + 2 {
			ids, ps := h.open(after, limit)
			got = append(got, ids...)
			if len(ids) < limit {
				break
			}
			after = ps[len(ps)-1]
		}
		if !slices.Equal(got, want) {
			t.Fatalf("paging %d at a time: %q, want %q", limit, got, want)
		}
	}
	for i, seq := range seqs {
		if ids, _ := h.open(seq, 2); !slices.Equal(ids, want[i+1:min(i+3, len(want))]) {
			t.Fatalf("OpenMatches(%d, 2) = %q, want %q", seq, ids, want[i+1:min(i+3, len(want))])
		}
	}
	if ids, _ := h.open(seqs[len(seqs)-1]+1000, 0); len(ids) != 0 {
		t.Fatalf("OpenMatches after the last place = %q, want none", ids)
	}
}

// A place is never given twice: not when the matches after it left the
// list, nor when the whole list emptied, so that a reader's position stays
// before every match that joins later.
func testOpenMatchesPlacesGrow(t *testing.T, h *coordHarness) {
	a := h.save("a", 0, "a", true)
	b := h.save("b", 0, "b", true)
	sb := h.seqOf("b")
	b = h.save("b", b, "b closed", false)
	c := h.save("c", 0, "c", true)
	if sc := h.seqOf("c"); sc <= sb {
		t.Fatalf("c joined at place %d after b left place %d: want it after b's", sc, sb)
	}
	if ids, _ := h.open(sb, 0); !slices.Equal(ids, []string{"c"}) {
		t.Fatalf("OpenMatches after b's place = %q, want [c]", ids)
	}
	sc := h.seqOf("c")
	h.save("a", a, "a closed", false)
	h.save("c", c, "c closed", false)
	h.wantOpen()
	h.save("d", 0, "d", true)
	if sd := h.seqOf("d"); sd <= sc {
		t.Fatalf("d joined the emptied list at place %d, want after c's %d", sd, sc)
	}
	// Opened again: a new place at the end.
	h.save("b", b, "b again", true)
	if sb2 := h.seqOf("b"); sb2 <= h.seqOf("d") {
		t.Fatalf("b opened again at place %d, want after d's", sb2)
	}
}

// A reader pages through the list while matches leave it and others join
// it between its pages: nothing is listed twice, none that stayed open
// throughout is skipped, nor any that joined before the last page, and
// none is listed once it left.
func testOpenMatchesPagingChanges(t *testing.T, h *coordHarness) {
	const n = 24
	version := map[string]int64{}
	save := func(id string, open bool) {
		version[id] = h.save(id, version[id], fmt.Sprint(id, " v", version[id]+1, " ", open), open)
	}
	for i := range n {
		save(fmt.Sprintf("stay%02d", i), true)
		save(fmt.Sprintf("leave%02d", i), true)
	}
	closed := map[string]bool{}
	var joined []string
	step := 0
	change := func() { // close one leaving match and open a new one
		if step < n {
			// From the far end first, so that some leave before they are read.
			id := fmt.Sprintf("leave%02d", (step*7)%n)
			save(id, false)
			closed[id] = true
			id = fmt.Sprintf("new%02d", step)
			save(id, true)
			joined = append(joined, id)
		}
		step++
	}
	seen := map[string]bool{}
	var after int64
	for pages := 0; ; pages++ {
		if pages > 4*n {
			t.Fatal("paging did not reach the end of the list")
		}
		before := len(joined)
		ids, seqs := h.open(after, 3)
		for _, id := range ids {
			if seen[id] {
				t.Fatalf("%s listed twice", id)
			}
			if closed[id] {
				t.Fatalf("%s listed after it left the list", id)
			}
			seen[id] = true
		}
		if len(ids) < 3 {
			for _, id := range joined[:before] {
				if !seen[id] {
					t.Fatalf("%s joined before the last page and was not listed", id)
				}
			}
			break
		}
		after = seqs[len(seqs)-1]
		change()
		change()
	}
	for i := range n {
		if id := fmt.Sprintf("stay%02d", i); !seen[id] {
			t.Fatalf("%s stayed open throughout and was not listed", id)
		}
	}
}

// A match whose record expired leaves the list of open matches, even
// though nothing saved it closed.
func testOpenMatchExpires(t *testing.T, h *coordHarness) {
	h.save("first", 0, "first", true)
	if _, err := h.c.SaveMatch(h.ctx, "short", 0, []byte("short"), true, 150*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	h.save("last", 0, "last", true)
	h.wantOpen("first", "short", "last")
	// A page that finds an expired match reads on to fill its limit.
	first := h.seqOf("first")
	h.eventually("the expired match leaves the list", func() bool {
		got, err := h.c.OpenMatches(h.ctx, first, 1)
		return err == nil && len(got) == 1 && got[0].ID == "last"
	})
	h.wantOpen("first", "last")
}

func testCodes(t *testing.T, h *coordHarness) {
	if _, err := h.c.CodeMatch(h.ctx, "ABCD"); !errors.Is(err, match.ErrNotFound) {
		t.Fatalf("CodeMatch of an unknown code: %v, want ErrNotFound", err)
	}
	claim := func(code, id string, want bool) {
		t.Helper()
		ok, err := h.c.ClaimCode(h.ctx, code, id, long)
		if err != nil || ok != want {
			t.Fatalf("ClaimCode(%s, %s) = %v, %v; want %v", code, id, ok, err, want)
		}
	}
	claim("ABCD", "m1", true)
	claim("ABCD", "m2", false)
	claim("ABCD", "m1", true) // a resend of the claim that won
	claim("WXYZ", "m2", true)
	for code, want := range map[string]string{"ABCD": "m1", "WXYZ": "m2"} {
		if got, err := h.c.CodeMatch(h.ctx, code); err != nil || got != want {
			t.Fatalf("CodeMatch(%s) = %q, %v; want %q", code, got, err, want)
		}
	}
}

func testConcurrentCodeClaims(t *testing.T, h *coordHarness) {
	const claimers = 16
	var wins atomic.Int64
	var winner atomic.Value
	var wg sync.WaitGroup
	for i := range claimers {
		wg.Go(func() {
			id := fmt.Sprintf("m%d", i)
			ok, err := h.c.ClaimCode(h.ctx, "CODE", id, long)
			if err != nil {
				t.Error(err)
			}
			if ok {
				wins.Add(1)
				winner.Store(id)
			}
		})
	}
	wg.Wait()
	if n := wins.Load(); n != 1 {
		t.Fatalf("%d claims of one code won, want 1", n)
	}
	if got, err := h.c.CodeMatch(h.ctx, "CODE"); err != nil || got != winner.Load() {
		t.Fatalf("CodeMatch = %q, %v; want the winner %v", got, err, winner.Load())
	}
}

func testCodeExpires(t *testing.T, h *coordHarness) {
	if ok, err := h.c.ClaimCode(h.ctx, "SHORT", "m1", 150*time.Millisecond); !ok || err != nil {
		t.Fatalf("ClaimCode: %v, %v", ok, err)
	}
	h.eventually("the code expires", func() bool {
		_, err := h.c.CodeMatch(h.ctx, "SHORT")
		return errors.Is(err, match.ErrNotFound)
	})
	if ok, err := h.c.ClaimCode(h.ctx, "SHORT", "m2", long); !ok || err != nil {
		t.Fatalf("ClaimCode of an expired code: %v, %v", ok, err)
	}
}

func testPlayerMatch(t *testing.T, h *coordHarness) {
	want := func(player, id string) {
		t.Helper()
		if got, err := h.c.PlayerMatch(h.ctx, player); err != nil || got != id {
			t.Fatalf("PlayerMatch(%s) = %q, %v; want %q", player, got, err, id)
		}
	}
	set := func(player, id string, ttl time.Duration) {
		t.Helper()
		if err := h.c.SetPlayerMatch(h.ctx, player, id, ttl); err != nil {
			t.Fatalf("SetPlayerMatch(%s, %s): %v", player, id, err)
		}
	}
	want("p1", "")
	set("p1", "m1", long)
	set("p2", "m2", long)
	want("p1", "m1")
	set("p1", "m3", long)
	want("p1", "m3")
	set("p1", "", long)
	want("p1", "")
	set("p1", "", long) // forgetting nothing is fine
	want("p2", "m2")
	set("p3", "m4", 150*time.Millisecond)
	h.eventually("the player's match expires", func() bool {
		got, err := h.c.PlayerMatch(h.ctx, "p3")
		return err == nil && got == ""
	})
}

func testRounds(t *testing.T, h *coordHarness) {
	if _, err := h.c.LoadRound(h.ctx, "r1"); !errors.Is(err, match.ErrNotFound) {
		t.Fatalf("LoadRound of an unknown round: %v, want ErrNotFound", err)
	}
	save := func(id, rec string, ttl time.Duration) {
		t.Helper()
		if err := h.c.SaveRound(h.ctx, id, []byte(rec), ttl); err != nil {
			t.Fatalf("SaveRound(%s): %v", id, err)
		}
	}
	want := func(id, rec string) {
		t.Helper()
		if got, err := h.c.LoadRound(h.ctx, id); err != nil || string(got) != rec {
			t.Fatalf("LoadRound(%s) = %q, %v; want %q", id, got, err, rec)
		}
	}
	save("r1", "one", long)
	save("r2", "two\x00", long)
	want("r1", "one")
	save("r1", "one, again", long)
	want("r1", "one, again")
	want("r2", "two\x00")
	save("r3", "short", 150*time.Millisecond)
	h.eventually("the round's record expires", func() bool {
		_, err := h.c.LoadRound(h.ctx, "r3")
		return errors.Is(err, match.ErrNotFound)
	})
}

// collector gathers the messages a subscriber gets.
type collector struct {
	mu   sync.Mutex
	msgs []string
}

func (c *collector) add(msg []byte) {
	c.mu.Lock()
	c.msgs = append(c.msgs, string(msg))
	c.mu.Unlock()
}

func (c *collector) get() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.msgs)
}

func (h *coordHarness) subscribe(ctx context.Context) *collector {
	h.t.Helper()
	c := &collector{}
	if err := h.c.Subscribe(ctx, c.add); err != nil {
		h.t.Fatalf("Subscribe: %v", err)
	}
	return c
}

func (h *coordHarness) publish(msg string) {
	h.t.Helper()
	if err := h.c.Publish(h.ctx, []byte(msg)); err != nil {
		h.t.Fatalf("Publish(%q): %v", msg, err)
	}
}

// Two subscribers each get every message published after they subscribed,
// in order, this node's own messages included.
func testPubSub(t *testing.T, h *coordHarness) {
	const n = 300
	h.publish("before anyone listens")
	s1 := h.subscribe(h.ctx)
	s2 := h.subscribe(h.ctx)
	var want []string
	for i := range n {
		msg := fmt.Sprintf("message %d", i)
		if i%50 == 0 {
			msg += "\x00\xff binary"
		}
		h.publish(msg)
		want = append(want, msg)
	}
	for i, s := range []*collector{s1, s2} {
		h.eventually(fmt.Sprintf("subscriber %d gets %d messages", i+1, n), func() bool { return len(s.get()) >= n })
		if got := s.get(); !slices.Equal(got, want) {
			t.Fatalf("subscriber %d got %d messages, first %q; want %d, first %q", i+1, len(got), got[0], n, want[0])
		}
	}
}

// Messages of each publisher reach a subscriber in their order, however the
// publishers interleave.
func testPublishersOrder(t *testing.T, h *coordHarness) {
	const publishers, each = 4, 100
	s := h.subscribe(h.ctx)
	var wg sync.WaitGroup
	for p := range publishers {
		wg.Go(func() {
			for i := range each {
				if err := h.c.Publish(h.ctx, fmt.Appendf(nil, "%d:%d", p, i)); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	h.eventually("every message arrives", func() bool { return len(s.get()) >= publishers*each })
	next := make([]int, publishers)
	for _, m := range s.get() {
		var p, i int
		if _, err := fmt.Sscanf(m, "%d:%d", &p, &i); err != nil {
			t.Fatalf("message %q: %v", m, err)
		}
		if i != next[p] {
			t.Fatalf("publisher %d: message %d arrived when %d was due", p, i, next[p])
		}
		next[p]++
	}
}

// Once its context is done a subscription calls its function no more, and
// a context done already is refused.
func testSubscribeStops(t *testing.T, h *coordHarness) {
	ctx, cancel := context.WithCancel(h.ctx)
	var stopped atomic.Bool
	var late atomic.Int64
	var got atomic.Int64
	err := h.c.Subscribe(ctx, func(msg []byte) {
		if stopped.Load() {
			late.Add(1)
		}
		got.Add(1)
	})
	if err != nil {
		t.Fatal(err)
	}
	still := h.subscribe(h.ctx) // a subscription that goes on
	h.publish("one")
	h.eventually("the first message arrives", func() bool { return got.Load() == 1 })
	stopped.Store(true)
	cancel()
	for i := range 20 {
		h.publish(fmt.Sprintf("after %d", i))
	}
	h.eventually("the other subscription gets every message", func() bool { return len(still.get()) == 21 })
	time.Sleep(100 * time.Millisecond)
	if n := late.Load(); n > 0 {
		t.Fatalf("%d messages delivered after the context was done", n)
	}

	done, cancelDone := context.WithCancel(h.ctx)
	cancelDone()
	if err := h.c.Subscribe(done, func([]byte) { late.Add(1) }); err == nil {
		t.Fatal("Subscribe with a done context: nil error")
	}
}

// The data epoch is not empty, and every call (concurrent first calls
// too) returns the same one.
func testDataEpoch(t *testing.T, h *coordHarness) {
	const callers = 8
	got := make([]string, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Go(func() {
			e, err := h.c.DataEpoch(h.ctx)
			if err != nil {
				t.Error(err)
			}
			got[i] = e
		})
	}
	wg.Wait()
	if got[0] == "" || strings.TrimSpace(got[0]) != got[0] {
		t.Fatalf("data epoch %q", got[0])
	}
	for i, e := range got {
		if e != got[0] {
			t.Fatalf("caller %d got data epoch %q, caller 0 %q", i, e, got[0])
		}
	}
	for range 3 {
		if e, err := h.c.DataEpoch(h.ctx); err != nil || e != got[0] {
			t.Fatalf("DataEpoch again = %q, %v; want %q", e, err, got[0])
		}
	}
}
