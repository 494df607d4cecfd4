package storetest

// The challenges' suite (RunChallenges) on Made: the challenges a player
// made.

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"klondike/lobby/challenge"
)

// madeRecord returns a challenge the player made, opening at opens.
func madeRecord(id, creator string, opens time.Time) challenge.Record {
	rec := challengeRecord(id)
	rec.Kind, rec.Day, rec.CreatorID, rec.CreatorName = challenge.KindChallenge, "", creator, "name of "+creator
	rec.OpensAt, rec.ClosesAt = opens, opens.Add(24*time.Hour)
	return rec
}

// wantMade fails the test unless Made(creator, limit) is want.
func (h *challengeHarness) wantMade(creator string, limit int, want ...challenge.Record) {
	h.t.Helper()
	got, err := h.s.Made(h.ctx, creator, limit)
	if err != nil {
		h.t.Fatalf("Made(%q, %d): %v", creator, limit, err)
	}
	if !slices.EqualFunc(got, want, sameRecord) {
		ids := func(rs []challenge.Record) []string {
			out := make([]string, len(rs))
			for i, r := range rs {
				out[i] = fmt.Sprintf("%s (%s, closed early %v)", r.ID, r.OpensAt.Format(time.RFC3339Nano), r.ClosedEarly)
			}
			return out
		}
		h.t.Fatalf("Made(%q, %d):\n got %v\nwant %v", creator, limit, ids(got), ids(want))
	}
}

// testMade: Made lists the challenges a player made, newest first (by
// OpensAt, then by id, greater first), each once, as the store has it
// now; not daily rounds, not another player's.
func testMade(t *testing.T, h *challengeHarness) {
	alice, bob := h.prefix+"-alice", h.prefix+"-{bob}:x"
	var mine []challenge.Record
	for _, hours := range []int{3, 0, 4, 1, 2} {
		rec := madeRecord(h.id(), alice, opensAt.Add(time.Duration(hours)*time.Hour))
		h.create(rec)
		mine = append(mine, rec)
	}
	// Two made in the same millisecond: the greater id first.
	same := []challenge.Record{madeRecord(h.id()+"-a", alice, opensAt.Add(-time.Hour)), madeRecord(h.id()+"-b", alice, opensAt.Add(-time.Hour+time.Microsecond))}
	for _, rec := range same {
		h.create(rec)
	}
	mine = append(mine, same...)
	bobs := madeRecord(h.id(), bob, opensAt.Add(10*time.Hour))
	h.create(bobs)
	h.round() // a daily round, made by nobody
	newest := []challenge.Record{mine[2], mine[0], mine[4], mine[3], mine[1], same[1], same[0]}
	h.wantMade(alice, 100, newest...)
	h.wantMade(alice, len(newest), newest...)
	h.wantMade(alice, 2, newest[:2]...)
	h.wantMade(alice, 1, newest[0])
	h.wantMade(bob, 10, bobs)
	h.wantMade(h.prefix+"-nobody", 10)
	if got, err := h.s.Made(h.ctx, alice, 0); err == nil {
		t.Fatalf("Made with limit 0 = %v, no error", got)
	}

	// Made again (not created): listed once. Closed early: listed so.
	if _, created, err := h.s.Create(h.ctx, mine[0], long); err != nil || created {
		t.Fatalf("Create again = %v, %v; want not created", created, err)
	}
	closed, err := h.s.CloseEarly(h.ctx, mine[0].ID, opensAt.Add(5*time.Hour))
	if err != nil || !closed.ClosedEarly {
		t.Fatalf("CloseEarly = %+v, %v", closed, err)
	}
	newest[1] = closed
	h.wantMade(alice, 100, newest...)
}

// testMadeExpiry: a challenge the store no longer keeps leaves its
// creator's list; an id made again by another player is theirs.
func testMadeExpiry(t *testing.T, h *challengeHarness) {
	const ttl = 400 * time.Millisecond
	alice, bob := h.prefix+"-alice", h.prefix+"-bob"
	short := madeRecord(h.id(), alice, opensAt.Add(2*time.Hour))
	start := time.Now()
	if _, created, err := h.s.Create(h.ctx, short, ttl); err != nil || !created {
		t.Fatalf("Create = %v, %v", created, err)
	}
	kept := madeRecord(h.id(), alice, opensAt)
	h.create(kept)
	got, err := h.s.Made(h.ctx, alice, 10)
	if time.Since(start) >= ttl/2 {
		t.Skipf("making the challenges took %v, too close to the ttl %v", time.Since(start), ttl)
	}
	if err != nil || !slices.EqualFunc(got, []challenge.Record{short, kept}, sameRecord) {
		t.Fatalf("Made before the ttl = %+v, %v; want both", got, err)
	}
	time.Sleep(time.Until(start.Add(ttl + 200*time.Millisecond)))
	h.wantMade(alice, 10, kept)
	h.wantMade(alice, 1, kept)

	// Another of alice's, made after the first expired; and the first's id
	// made again, by bob.
	later := madeRecord(h.id(), alice, opensAt.Add(3*time.Hour))
	h.create(later)
	h.wantMade(alice, 10, later, kept)
	again := madeRecord(short.ID, bob, opensAt.Add(4*time.Hour))
	h.create(again)
	h.wantMade(alice, 10, later, kept)
	h.wantMade(bob, 10, again)
}

// testMadeConcurrent: challenges one player makes at once, on many nodes,
// are all listed.
func testMadeConcurrent(t *testing.T, h *challengeHarness) {
	const nodes = 16
	alice := h.prefix + "-alice"
	recs := make([]challenge.Record, nodes)
	for i := range recs {
		recs[i] = madeRecord(h.id(), alice, opensAt.Add(time.Duration(i)*time.Minute))
	}
	var wg sync.WaitGroup
	for _, rec := range recs {
		wg.Go(func() {
			if _, created, err := h.s.Create(h.ctx, rec, long); err != nil || !created {
				t.Errorf("Create(%s) = %v, %v", rec.ID, created, err)
			}
		})
	}
	wg.Wait()
	slices.Reverse(recs)
	h.wantMade(alice, nodes, recs...)
}
