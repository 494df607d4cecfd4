package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"klondike/engine"
	"klondike/lobby/challenge"
	"klondike/match"
)

// RunChallenges runs the conformance suite of challenge.Store; newStore returns
// the store a subtest uses. Subtests run in parallel with round and player
// ids of their own, so a factory may hand all of them one store.
//
//	func TestChallengesConformance(t *testing.T) {
//		storetest.RunChallenges(t, func(*testing.T) challenge.Store { return memstore.NewChallenges() })
//	}
func RunChallenges(t *testing.T, newStore func(t *testing.T) challenge.Store) {
	t.Helper()
	var runID atomic.Int64
	stamp := time.Now().UnixNano()
	tests := []struct {
		name string
		fn   func(t *testing.T, h *challengeHarness)
	}{
		{"CreateOnce", testCreateOnce},
		{"ConcurrentCreators", testConcurrentCreators},
		{"RecordRoundTripsEveryField", testChallengeRecordFields},
		{"NotFound", testChallengeNotFound},
		{"CloseEarly", testCloseEarly},
		{"OneAttemptAPlayer", testOneAttempt},
		{"ConcurrentAttempts", testConcurrentAttempts},
		{"AttemptsPaging", testAttemptsPaging},
		{"AttemptsPagingWhileStarting", testAttemptsPagingGrowing},
		{"FinishOnce", testFinishOnce},
		{"ConcurrentFinishes", testConcurrentFinishes},
		{"FinishNeedsAnAttempt", testFinishNeedsAttempt},
		{"BoardOrder", testBoardOrder},
		{"BoardTopAndAround", testBoardTopAround},
		{"BoardRange", testBoardRange},
		{"PlayerEntry", testPlayerEntry},
		{"UnusualIDs", testChallengeUnusualIDs},
		{"RoundsAreIsolated", testChallengeIsolation},
		{"Expiry", testChallengeExpiry},
		{"MadeNewestFirst", testMade},
		{"MadeOnlyChallengesKept", testMadeExpiry},
		{"MadeConcurrently", testMadeConcurrent},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			t.Cleanup(cancel)
			tc.fn(t, &challengeHarness{
				t: t, s: newStore(t), ctx: ctx,
				prefix: fmt.Sprintf("as%x-%d-%s", stamp, runID.Add(1), tc.name),
			})
		})
	}
}

// challengeHarness carries a subtest's store and makes its round ids.
type challengeHarness struct {
	t      *testing.T
	s      challenge.Store
	ctx    context.Context
	prefix string
	n      int
}

// id returns a round id no other subtest or run uses.
func (h *challengeHarness) id() string {
	h.n++
	return fmt.Sprintf("%s-a%d", h.prefix, h.n)
}

// opensAt is when the suite's rounds open: the stores do not look at
// the window, so a fixed date keeps the records the same every run.
var opensAt = time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC)

// challengeRecord returns a daily round's record with every field set.
func challengeRecord(id string) challenge.Record {
	r := engine.DefaultRules()
	return challenge.Record{
		ID: id, Kind: challenge.KindDaily, Variant: challenge.Variant(r), Rules: r, Mode: match.ModeRace,
		Fair: match.FairDeal{
			Seed: 1<<63 + 12345, Salt: "00112233445566778899aabbccddeeff",
			Commitment: strings.Repeat("ab", 32), Winnable: true,
		},
		LimitMs: 10 * 60 * 1000, OpensAt: opensAt, ClosesAt: opensAt.Add(24 * time.Hour),
		Day: challenge.DayOf(opensAt),
	}
}

// sameRecord reports whether two records are equal as the wire has them.
func sameRecord(a, b challenge.Record) bool {
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(ja) == string(jb)
}

func sameAttempt(a, b challenge.Attempt) bool {
	return a.PlayerID == b.PlayerID && a.Name == b.Name && a.StartedAt.Equal(b.StartedAt) && a.Finished == b.Finished
}

// create makes a round with the record for an hour and returns its id.
func (h *challengeHarness) create(rec challenge.Record) string {
	h.t.Helper()
	got, created, err := h.s.Create(h.ctx, rec, long)
	if err != nil || !created || !sameRecord(got, rec) {
		h.t.Fatalf("Create(%s) = %+v, %v, %v; want the record, created", rec.ID, got, created, err)
	}
	return rec.ID
}

// round makes a new round and returns its id.
func (h *challengeHarness) round() string {
	h.t.Helper()
	return h.create(challengeRecord(h.id()))
}

func attemptOf(player string, i int) challenge.Attempt {
	return challenge.Attempt{PlayerID: player, Name: "name of " + player, StartedAt: opensAt.Add(time.Duration(i) * time.Second)}
}

// start starts the player's attempt and wants it fresh.
func (h *challengeHarness) start(id string, a challenge.Attempt) {
	h.t.Helper()
	got, fresh, err := h.s.StartAttempt(h.ctx, id, a)
	if err != nil || !fresh || !sameAttempt(got, a) {
		h.t.Fatalf("StartAttempt(%s, %s) = %+v, %v, %v; want %+v, fresh", id, a.PlayerID, got, fresh, err, a)
	}
}

// wonEntry returns the entry of a player who won at ms on their clock.
func wonEntry(rec *challenge.Record, player string, ms int64) match.BoardEntry {
	st := match.Standing{
		PlayerID: player, Name: "name of " + player, Points: 600, Foundation: engine.NumCards,
		Moves: 100 + int(ms%50), Status: engine.Won, FinishedMs: ms, ReachedMs: ms,
	}
	return challenge.EntryOf(rec, st, ms)
}

// finish starts the player's attempt and puts the entry on the board.
func (h *challengeHarness) finish(id string, e match.BoardEntry) {
	h.t.Helper()
	h.start(id, attemptOf(e.PlayerID, 0))
	if ok, err := h.s.Finish(h.ctx, id, e); err != nil || !ok {
		h.t.Fatalf("Finish(%s, %s) = %v, %v; want true", id, e.PlayerID, ok, err)
	}
}

// board returns the entries of the whole board, checking that their ranks
// run from 1.
func (h *challengeHarness) board(id string) []match.BoardEntry {
	h.t.Helper()
	page, err := h.s.Board(h.ctx, id, 1<<20, "", 0)
	if err != nil {
		h.t.Fatalf("Board(%s): %v", id, err)
	}
	if len(page.Top) != page.Finished {
		h.t.Fatalf("Board(%s): %d entries of %d finished", id, len(page.Top), page.Finished)
	}
	for i, e := range page.Top {
		if e.Rank != i+1 {
			h.t.Fatalf("Board(%s): entry %d (%s) has rank %d", id, i, e.PlayerID, e.Rank)
		}
	}
	return page.Top
}

// wantEntries fails the test unless got are want with ranks from first on.
func (h *challengeHarness) wantEntries(what string, got, want []match.BoardEntry, first int) {
	h.t.Helper()
	want = slices.Clone(want)
	for i := range want {
		want[i].Rank = first + i
	}
	if len(got) != len(want) || (len(got) > 0 && !slices.Equal(got, want)) {
		h.t.Fatalf("%s:\n got %v\nwant %v", what, players(got), players(want))
	}
}

// players lists the entries' player ids and ranks, for messages.
func players(es []match.BoardEntry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = fmt.Sprintf("%d:%s", e.Rank, e.PlayerID)
	}
	return out
}

func testCreateOnce(t *testing.T, h *challengeHarness) {
	rec := challengeRecord(h.id())
	h.create(rec)
	other := rec
	other.CreatorName, other.Fair.Salt = "another node", "ffffffffffffffffffffffffffffffff"
	got, created, err := h.s.Create(h.ctx, other, long)
	if err != nil || created || !sameRecord(got, rec) {
		t.Fatalf("second Create = %+v, %v, %v; want the first record, not created", got, created, err)
	}
	if got, err := h.s.Load(h.ctx, rec.ID); err != nil || !sameRecord(got, rec) {
		t.Fatalf("Load = %+v, %v; want %+v", got, err, rec)
	}
}

// testConcurrentCreators: nodes racing to make one daily round agree on
// one record, which exactly one of them made.
func testConcurrentCreators(t *testing.T, h *challengeHarness) {
	const nodes = 16
	id := h.id()
	recs := make([]challenge.Record, nodes)
	got := make([]challenge.Record, nodes)
	created := make([]bool, nodes)
	var wg sync.WaitGroup
	for i := range nodes {
		recs[i] = challengeRecord(id)
		recs[i].Fair.Salt = fmt.Sprintf("%032x", i)
		wg.Go(func() {
			var err error
			if got[i], created[i], err = h.s.Create(h.ctx, recs[i], long); err != nil {
				t.Errorf("Create by node %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	maker := slices.Index(created, true)
	if maker < 0 || slices.Index(created[maker+1:], true) >= 0 {
		t.Fatalf("created by nodes %v; want exactly one", created)
	}
	for i := range nodes {
		if !sameRecord(got[i], recs[maker]) {
			t.Fatalf("node %d got %+v; want node %d's record", i, got[i], maker)
		}
	}
	if rec, err := h.s.Load(h.ctx, id); err != nil || !sameRecord(rec, recs[maker]) {
		t.Fatalf("Load = %+v, %v; want node %d's record", rec, err, maker)
	}
}

func testChallengeRecordFields(t *testing.T, h *challengeHarness) {
	recs := []challenge.Record{challengeRecord(h.id()), challengeRecord(h.id())}
	c := &recs[1]
	c.Kind, c.Day, c.CreatorID, c.CreatorName = challenge.KindChallenge, "", "p-creator", `Zoë "🂡" \ {x}`
	c.Rules = engine.Rules{Draw: 1, Passes: 3, Undo: engine.UndoOff, Scoring: engine.ScoringVegas}
	c.Variant, c.Mode, c.LimitMs = challenge.Variant(c.Rules), match.ModeScore, 1
	c.Fair = match.KnownDeal(1<<64 - 1)
	c.OpensAt = time.Date(2027, 1, 2, 3, 4, 5, 123456789, time.UTC)
	c.ClosesAt = c.OpensAt.Add(7*24*time.Hour + time.Nanosecond)
	for _, rec := range recs {
		h.create(rec)
		if got, err := h.s.Load(h.ctx, rec.ID); err != nil || !sameRecord(got, rec) {
			t.Fatalf("Load = %+v, %v;\nwant %+v", got, err, rec)
		}
	}
}

func testChallengeNotFound(t *testing.T, h *challengeHarness) {
	id, ctx, s := h.id(), h.ctx, h.s
	want := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, match.ErrNotFound) {
			t.Fatalf("%s of a missing round: %v, want match.ErrNotFound", what, err)
		}
	}
	_, err := s.Load(ctx, id)
	want("Load", err)
	_, err = s.CloseEarly(ctx, id, opensAt)
	want("CloseEarly", err)
	_, _, err = s.StartAttempt(ctx, id, attemptOf("p1", 0))
	want("StartAttempt", err)
	_, err = s.Attempt(ctx, id, "p1")
	want("Attempt", err)
	_, _, err = s.Attempts(ctx, id, "", 10)
	want("Attempts", err)
	_, err = s.Finish(ctx, id, wonEntry(&challenge.Record{Rules: engine.DefaultRules(), Mode: match.ModeRace}, "p1", 1000))
	want("Finish", err)
	_, err = s.Board(ctx, id, 10, "p1", 2)
	want("Board", err)
	_, err = s.BoardRange(ctx, id, 1, 10)
	want("BoardRange", err)
	_, err = s.PlayerEntry(ctx, id, "p1")
	want("PlayerEntry", err)

	// In a round that exists: a player without an attempt or an entry.
	h.create(challengeRecord(id))
	_, err = s.Attempt(ctx, id, "p1")
	want("Attempt of a player who has none", err)
	_, err = s.PlayerEntry(ctx, id, "p1")
	want("PlayerEntry of a player who has none", err)
	page, err := s.Board(ctx, id, 10, "p1", 2)
	if err != nil || page.Players != 0 || page.Finished != 0 || len(page.Top) != 0 || len(page.Around) != 0 || page.Rank != 0 {
		t.Fatalf("Board of an empty round = %+v, %v", page, err)
	}
	if got, next, err := s.Attempts(ctx, id, "", 10); err != nil || len(got) != 0 || next != "" {
		t.Fatalf("Attempts of an empty round = %v, %q, %v", got, next, err)
	}
}

// testCloseEarly: a close moves the window's end forward, never back.
func testCloseEarly(t *testing.T, h *challengeHarness) {
	rec := challengeRecord(h.id())
	h.create(rec)
	close := func(at time.Time, want challenge.Record) {
		t.Helper()
		got, err := h.s.CloseEarly(h.ctx, rec.ID, at)
		if err != nil || !sameRecord(got, want) {
			t.Fatalf("CloseEarly(%v) = %+v, %v;\nwant %+v", at, got, err, want)
		}
		if got, err := h.s.Load(h.ctx, rec.ID); err != nil || !sameRecord(got, want) {
			t.Fatalf("Load after CloseEarly(%v) = %+v, %v;\nwant %+v", at, got, err, want)
		}
	}
	close(rec.ClosesAt, rec) // not early
	close(rec.ClosesAt.Add(time.Hour), rec)
	early := rec
	early.ClosesAt, early.ClosedEarly = rec.OpensAt.Add(3*time.Hour+time.Millisecond), true
	close(early.ClosesAt, early)
	close(early.ClosesAt.Add(time.Minute), early)
	close(rec.ClosesAt, early)
	earlier := early
	earlier.ClosesAt = rec.OpensAt.Add(time.Hour)
	close(earlier.ClosesAt, earlier)
}

func testOneAttempt(t *testing.T, h *challengeHarness) {
	id := h.round()
	first := attemptOf("p1", 1)
	h.start(id, first)
	again := attemptOf("p1", 2)
	again.Name = "renamed"
	got, fresh, err := h.s.StartAttempt(h.ctx, id, again)
	if err != nil || fresh || !sameAttempt(got, first) {
		t.Fatalf("second StartAttempt = %+v, %v, %v; want %+v, not fresh", got, fresh, err, first)
	}
	if got, err := h.s.Attempt(h.ctx, id, "p1"); err != nil || !sameAttempt(got, first) {
		t.Fatalf("Attempt = %+v, %v; want %+v", got, err, first)
	}
	// A caller's Finished is not the store's: the attempt is not on the board.
	other := attemptOf("p2", 3)
	other.Finished = true
	got, fresh, err = h.s.StartAttempt(h.ctx, id, other)
	if other.Finished = false; err != nil || !fresh || !sameAttempt(got, other) {
		t.Fatalf("StartAttempt(p2) = %+v, %v, %v; want %+v, fresh", got, fresh, err, other)
	}
	if got, err := h.s.Attempt(h.ctx, id, "p2"); err != nil || !sameAttempt(got, other) {
		t.Fatalf("Attempt(p2) = %+v, %v; want %+v", got, err, other)
	}
}

// testConcurrentAttempts: a player starting on many nodes at once gets one
// attempt, the same on every node.
func testConcurrentAttempts(t *testing.T, h *challengeHarness) {
	const nodes = 16
	id := h.round()
	got := make([]challenge.Attempt, nodes)
	fresh := make([]bool, nodes)
	var wg sync.WaitGroup
	for i := range nodes {
		wg.Go(func() {
			a := attemptOf("p1", i)
			a.Name = fmt.Sprintf("node %d", i)
			var err error
			if got[i], fresh[i], err = h.s.StartAttempt(h.ctx, id, a); err != nil {
				t.Errorf("StartAttempt on node %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	n := slices.Index(fresh, true)
	if n < 0 || slices.Index(fresh[n+1:], true) >= 0 {
		t.Fatalf("fresh on nodes %v; want exactly one", fresh)
	}
	if got[n].Name != fmt.Sprintf("node %d", n) {
		t.Fatalf("node %d started %+v, not its own attempt", n, got[n])
	}
	for i := range nodes {
		if !sameAttempt(got[i], got[n]) {
			t.Fatalf("node %d got %+v; want node %d's %+v", i, got[i], n, got[n])
		}
	}
	page, err := h.s.Board(h.ctx, id, 0, "", 0)
	if err != nil || page.Players != 1 {
		t.Fatalf("Board = %+v, %v; want 1 player", page, err)
	}
}

// pageAll reads every page of the round's attempts with limit, calling
// between(page) after each page but the last; it fails the test on an
// attempt that comes twice.
func (h *challengeHarness) pageAll(id string, limit int, between func(page int)) map[string]challenge.Attempt {
	h.t.Helper()
	seen := map[string]challenge.Attempt{}
	cursor := ""
	for page := 0; ; page++ {
		got, next, err := h.s.Attempts(h.ctx, id, cursor, limit)
		if err != nil {
			h.t.Fatalf("Attempts(%s, %q, %d): %v", id, cursor, limit, err)
		}
		if len(got) > limit {
			h.t.Fatalf("Attempts(%s, %q, %d): %d attempts", id, cursor, limit, len(got))
		}
		for _, a := range got {
			if _, dup := seen[a.PlayerID]; dup {
				h.t.Fatalf("Attempts: %s came twice (page %d)", a.PlayerID, page)
			}
			seen[a.PlayerID] = a
		}
		if next == "" {
			return seen
		}
		if page > 10000 {
			h.t.Fatal("Attempts: no last page")
		}
		cursor = next
		if between != nil {
			between(page)
		}
	}
}

func testAttemptsPaging(t *testing.T, h *challengeHarness) {
	const n = 250
	id := h.round()
	rec := challengeRecord(id)
	want := map[string]challenge.Attempt{}
	for i := range n {
		a := attemptOf(fmt.Sprintf("p%03d", i), i)
		h.start(id, a)
		if i%3 == 0 {
			e := wonEntry(&rec, a.PlayerID, int64(60000+i))
			if ok, err := h.s.Finish(h.ctx, id, e); err != nil || !ok {
				t.Fatalf("Finish(%s) = %v, %v", a.PlayerID, ok, err)
			}
			a.Finished = true
		}
		want[a.PlayerID] = a
	}
	for _, limit := range []int{1, 7, 100, n, n + 1, 1000} {
		got := h.pageAll(id, limit, nil)
		if len(got) != n {
			t.Fatalf("limit %d: %d attempts, want %d", limit, len(got), n)
		}
		for p, a := range want {
			if !sameAttempt(got[p], a) {
				t.Fatalf("limit %d: attempt %+v, want %+v", limit, got[p], a)
			}
		}
	}
	if _, _, err := h.s.Attempts(h.ctx, id, "", 0); err == nil {
		t.Fatal("Attempts with limit 0: no error")
	}
}

// testAttemptsPagingWhileStarting: attempts started while a reader pages
// come at most once; those there throughout come exactly once.
func testAttemptsPagingGrowing(t *testing.T, h *challengeHarness) {
	const n = 100
	id := h.round()
	for i := range n {
		h.start(id, attemptOf(fmt.Sprintf("p%03d", i), i))
	}
	added := 0
	got := h.pageAll(id, 7, func(int) {
		for range 3 {
			h.start(id, attemptOf(fmt.Sprintf("new%03d", added), n+added))
			added++
		}
	})
	for i := range n {
		if _, ok := got[fmt.Sprintf("p%03d", i)]; !ok {
			t.Fatalf("p%03d, there throughout, did not come", i)
		}
	}
}

func testFinishOnce(t *testing.T, h *challengeHarness) {
	id := h.round()
	rec := challengeRecord(id)
	first := wonEntry(&rec, "p1", 90_000)
	h.finish(id, first)
	second := wonEntry(&rec, "p1", 80_000)
	if ok, err := h.s.Finish(h.ctx, id, second); err != nil || ok {
		t.Fatalf("second Finish = %v, %v; want false", ok, err)
	}
	if ok, err := h.s.Finish(h.ctx, id, first); err != nil || ok {
		t.Fatalf("Finish of the same entry again = %v, %v; want false", ok, err)
	}
	h.wantEntries("the board", h.board(id), []match.BoardEntry{first}, 1)
	if a, err := h.s.Attempt(h.ctx, id, "p1"); err != nil || !a.Finished {
		t.Fatalf("Attempt after Finish = %+v, %v; want it finished", a, err)
	}
	page, err := h.s.Board(h.ctx, id, 0, "", 0)
	if err != nil || page.Players != 1 || page.Finished != 1 {
		t.Fatalf("counts = %+v, %v; want 1 player, 1 finished", page, err)
	}
}

// testConcurrentFinishes: many players finish at once, and one player
// finishes on many nodes at once: one of that player's entries stands.
func testConcurrentFinishes(t *testing.T, h *challengeHarness) {
	const players, nodes = 40, 8
	id := h.round()
	rec := challengeRecord(id)
	for i := range players {
		h.start(id, attemptOf(fmt.Sprintf("p%02d", i), i))
	}
	h.start(id, attemptOf("shared", 0))
	entries := make([]match.BoardEntry, nodes)
	ok := make([]bool, nodes)
	var wg sync.WaitGroup
	for i := range players {
		wg.Go(func() {
			e := wonEntry(&rec, fmt.Sprintf("p%02d", i), int64(100_000+i*1000))
			if ok, err := h.s.Finish(h.ctx, id, e); err != nil || !ok {
				t.Errorf("Finish(%s) = %v, %v", e.PlayerID, ok, err)
			}
		})
	}
	for i := range nodes {
		wg.Go(func() {
			entries[i] = wonEntry(&rec, "shared", int64(50_000+i*500))
			var err error
			if ok[i], err = h.s.Finish(h.ctx, id, entries[i]); err != nil {
				t.Errorf("Finish(shared) on node %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	n := slices.Index(ok, true)
	if n < 0 || slices.Index(ok[n+1:], true) >= 0 {
		t.Fatalf("Finish(shared) true on nodes %v; want exactly one", ok)
	}
	got, err := h.s.PlayerEntry(h.ctx, id, "shared")
	entries[n].Rank = 1
	if err != nil || got != entries[n] {
		t.Fatalf("PlayerEntry(shared) = %+v, %v; want node %d's %+v", got, err, n, entries[n])
	}
	board := h.board(id)
	if len(board) != players+1 {
		t.Fatalf("%d entries on the board, want %d", len(board), players+1)
	}
	for i, e := range board[1:] {
		if e.PlayerID != fmt.Sprintf("p%02d", i) {
			t.Fatalf("rank %d is %s, want p%02d", i+2, e.PlayerID, i)
		}
	}
}

func testFinishNeedsAttempt(t *testing.T, h *challengeHarness) {
	id := h.round()
	rec := challengeRecord(id)
	if ok, err := h.s.Finish(h.ctx, id, wonEntry(&rec, "p1", 1000)); !errors.Is(err, match.ErrNotFound) || ok {
		t.Fatalf("Finish without an attempt = %v, %v; want match.ErrNotFound", ok, err)
	}
	if page, err := h.s.Board(h.ctx, id, 10, "p1", 1); err != nil || page.Finished != 0 {
		t.Fatalf("Board = %+v, %v; want it empty", page, err)
	}
	// An entry whose key is not the player's is refused.
	h.start(id, attemptOf("p1", 0))
	e := wonEntry(&rec, "p1", 1000)
	e.PlayerID = "p2"
	if ok, err := h.s.Finish(h.ctx, id, e); err == nil || ok {
		t.Fatalf("Finish of an entry keyed for another player = %v, %v; want an error", ok, err)
	}
}

// testBoardOrder: the board orders entries as their keys do, and so as
// challenge.EntryOf ranks: winners by time, then foundation cards, then
// score, ties by the time the result was reached, then by player id.
func testBoardOrder(t *testing.T, h *challengeHarness) {
	id := h.round()
	rec := challengeRecord(id)
	end := rec.LimitMs
	st := func(p string, status engine.Status, found, points int, finished, reached int64) match.Standing {
		return match.Standing{
			PlayerID: p, Name: "name of " + p, Join: 7, Points: points, Foundation: found, Moves: points / 5,
			Status: status, FinishedMs: finished, ReachedMs: reached,
		}
	}
	// In the order they rank.
	sts := []match.Standing{
		st("win-fast", engine.Won, 52, 500, 95_000, 95_000),
		st("win-slow-early", engine.Won, 52, 900, 200_000, 150_000),
		st("win-slow", engine.Won, 52, 900, 200_000, 200_000),
		st("f40", engine.Stuck, 40, 100, 300_000, 250_000),
		st("f30-high", engine.TimedOut, 30, 700, -1, 400_000),
		st("f30-low-early", engine.Resigned, 30, 400, 100_000, 90_000),
		st("f30-low-late", engine.Playing, 30, 400, -1, 300_000),
		st("f30-low-late2", engine.Playing, 30, 400, -1, 300_000),
		st("f30-lowest", engine.TimedOut, 30, 300, -1, 10_000),
		st("f0", engine.Stuck, 0, 0, 5_000, 0),
	}
	want := make([]match.BoardEntry, len(sts))
	for i, s := range sts {
		want[i] = challenge.EntryOf(&rec, s, end)
	}
	if !slices.IsSortedFunc(want, func(a, b match.BoardEntry) int { return strings.Compare(a.Key, b.Key) }) {
		t.Fatalf("the suite's standings do not rank in the order listed: %v", players(want))
	}
	order := rand.New(rand.NewPCG(3, 4)).Perm(len(want))
	for _, i := range order {
		h.finish(id, want[i])
	}
	h.wantEntries("the board", h.board(id), want, 1)

	// A larger board, in a random order, against the keys' order.
	id2 := h.round()
	rnd := rand.New(rand.NewPCG(5, 6))
	var many []match.BoardEntry
	for i := range 120 {
		p := fmt.Sprintf("p%03d", i)
		s := st(p, engine.TimedOut, rnd.IntN(53), rnd.IntN(5)*100, -1, int64(rnd.IntN(4))*1000)
		if rnd.IntN(3) == 0 {
			f := int64(30_000 + rnd.IntN(5)*1000)
			s = st(p, engine.Won, 52, 800, f, f)
		}
		many = append(many, challenge.EntryOf(&rec, s, end))
		h.finish(id2, many[i])
	}
	slices.SortFunc(many, func(a, b match.BoardEntry) int { return strings.Compare(a.Key, b.Key) })
	h.wantEntries("the larger board", h.board(id2), many, 1)
}

// wonBoard makes a round where players p00..p(n-1) won in that order, the
// first attempts more players started and did not finish, and returns its
// id and entries, best first.
func (h *challengeHarness) wonBoard(n, unfinished int) (string, []match.BoardEntry) {
	h.t.Helper()
	id := h.round()
	rec := challengeRecord(id)
	want := make([]match.BoardEntry, n)
	for i := range want {
		want[i] = wonEntry(&rec, fmt.Sprintf("p%02d", i), int64(60_000+i*1000))
	}
	for _, i := range rand.New(rand.NewPCG(uint64(n), 7)).Perm(n) {
		h.finish(id, want[i])
	}
	for i := range unfinished {
		h.start(id, attemptOf(fmt.Sprintf("u%02d", i), i))
	}
	return id, want
}

func testBoardTopAround(t *testing.T, h *challengeHarness) {
	const n, unfinished = 50, 10
	id, want := h.wonBoard(n, unfinished)
	cases := []struct {
		top         int
		player      string
		around      int
		rank        int
		first, last int // of Around, 1-based; 0 for none
	}{
		{10, "p24", 3, 25, 22, 28},
		{10, "p01", 3, 2, 1, 5},
		{10, "p00", 0, 1, 1, 1},
		{0, "p48", 3, 49, 46, 50},
		{5, "p49", 100, 50, 1, 50},
		{n + 10, "u00", 3, 0, 0, 0},
		{1, "nobody", 3, 0, 0, 0},
		{3, "", 3, 0, 0, 0},
		{-1, "p10", -2, 11, 11, 11},
	}
	for _, c := range cases {
		what := fmt.Sprintf("Board(top %d, %q, around %d)", c.top, c.player, c.around)
		page, err := h.s.Board(h.ctx, id, c.top, c.player, c.around)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if page.Players != n+unfinished || page.Finished != n || page.Rank != c.rank {
			t.Fatalf("%s: players %d, finished %d, rank %d; want %d, %d, %d",
				what, page.Players, page.Finished, page.Rank, n+unfinished, n, c.rank)
		}
		h.wantEntries(what+": top", page.Top, want[:min(max(c.top, 0), n)], 1)
		var around []match.BoardEntry
		if c.first > 0 {
			around = want[c.first-1 : c.last]
		}
		h.wantEntries(what+": around", page.Around, around, c.first)
	}
}

func testBoardRange(t *testing.T, h *challengeHarness) {
	const n = 30
	id, want := h.wonBoard(n, 3)
	cases := []struct{ from, limit, first, last int }{
		{1, 10, 1, 10},
		{11, 10, 11, 20},
		{25, 10, 25, 30},
		{30, 1, 30, 30},
		{31, 10, 0, 0},
		{1, 0, 0, 0},
		{0, 2, 1, 2},
		{1, 1000, 1, 30},
		{1, math.MaxInt, 1, 30},
		// Far past the end, up to where from+limit no longer fits an int:
		// an empty page, as anywhere past the end.
		{1e17, 10, 0, 0},
		{1 << 53, 100, 0, 0},
		{1<<53 + 1, 100, 0, 0},
		{1 << 62, 100, 0, 0},
		{math.MaxInt - 100, 100, 0, 0},
		{math.MaxInt - 100, 101, 0, 0},
		{math.MaxInt, 101, 0, 0},
		{math.MaxInt, math.MaxInt, 0, 0},
	}
	for _, c := range cases {
		got, err := h.s.BoardRange(h.ctx, id, c.from, c.limit)
		if err != nil {
			t.Fatalf("BoardRange(%d, %d): %v", c.from, c.limit, err)
		}
		var w []match.BoardEntry
		if c.first > 0 {
			w = want[c.first-1 : c.last]
		}
		h.wantEntries(fmt.Sprintf("BoardRange(%d, %d)", c.from, c.limit), got, w, c.first)
	}
}

func testPlayerEntry(t *testing.T, h *challengeHarness) {
	id, want := h.wonBoard(20, 2)
	for i, w := range want {
		w.Rank = i + 1
		if got, err := h.s.PlayerEntry(h.ctx, id, w.PlayerID); err != nil || got != w {
			t.Fatalf("PlayerEntry(%s) = %+v, %v; want %+v", w.PlayerID, got, err, w)
		}
	}
	if got, err := h.s.PlayerEntry(h.ctx, id, "u00"); !errors.Is(err, match.ErrNotFound) {
		t.Fatalf("PlayerEntry of an unfinished attempt = %+v, %v; want match.ErrNotFound", got, err)
	}
	// Every field comes back as it went in.
	id2 := h.round()
	e := match.BoardEntry{
		PlayerID: "p-all", Name: `Zoë "🂡"`, Score: -52, Foundation: 7, Moves: 321, Status: engine.TimedOut,
		ElapsedMs: 1<<40 + 3, ReachedMs: 1<<39 + 5, Key: "1450000001234:p-all",
	}
	h.finish(id2, e)
	e.Rank = 1
	if got, err := h.s.PlayerEntry(h.ctx, id2, e.PlayerID); err != nil || got != e {
		t.Fatalf("PlayerEntry = %+v, %v; want %+v", got, err, e)
	}
}

// testChallengeUnusualIDs: round and player ids with the characters of key
// syntax work, a player's id with a colon too (the key's first colon ends
// its order part).
func testChallengeUnusualIDs(t *testing.T, h *challengeHarness) {
	ids := []string{h.id() + ":x", h.id() + "{y}", h.id() + "}z{", h.id() + " ünï"}
	ps := []string{"a:b", "{x}", "}", "with space", "ünï", "p.q", "::"}
	for _, id := range ids {
		rec := challengeRecord(id)
		h.create(rec)
		var want []match.BoardEntry
		for i, p := range ps {
			want = append(want, wonEntry(&rec, p, int64(70_000+i)))
			h.finish(id, want[i])
		}
		h.wantEntries("board of "+id, h.board(id), want, 1)
		for i, w := range want {
			page, err := h.s.Board(h.ctx, id, 0, w.PlayerID, 0)
			if err != nil || page.Rank != i+1 {
				t.Fatalf("Board(%q, player %q) = %+v, %v; want rank %d", id, w.PlayerID, page, err, i+1)
			}
		}
		if got := h.pageAll(id, 2, nil); len(got) != len(ps) {
			t.Fatalf("Attempts(%q): %d, want %d", id, len(got), len(ps))
		}
	}
}

func testChallengeIsolation(t *testing.T, h *challengeHarness) {
	a, b := h.round(), h.round()
	recA := challengeRecord(a)
	h.finish(a, wonEntry(&recA, "p1", 1000))
	h.start(a, attemptOf("p2", 0))
	if _, err := h.s.Attempt(h.ctx, b, "p1"); !errors.Is(err, match.ErrNotFound) {
		t.Fatalf("Attempt of round a's player in round b: %v, want match.ErrNotFound", err)
	}
	page, err := h.s.Board(h.ctx, b, 10, "p1", 1)
	if err != nil || page.Players != 0 || page.Finished != 0 || len(page.Top) != 0 || page.Rank != 0 {
		t.Fatalf("Board of round b = %+v, %v; want it empty", page, err)
	}
	if got, err := h.s.CloseEarly(h.ctx, b, opensAt); err != nil || !got.ClosedEarly {
		t.Fatalf("CloseEarly(b) = %+v, %v", got, err)
	}
	if got, err := h.s.Load(h.ctx, a); err != nil || got.ClosedEarly {
		t.Fatalf("Load(a) after closing b = %+v, %v", got, err)
	}
}

// testChallengeExpiry: a round and all of it go at the ttl it was made with;
// its id may then make a new round.
func testChallengeExpiry(t *testing.T, h *challengeHarness) {
	const ttl = 400 * time.Millisecond
	rec := challengeRecord(h.id())
	start := time.Now()
	if _, created, err := h.s.Create(h.ctx, rec, ttl); err != nil || !created {
		t.Fatalf("Create = %v, %v", created, err)
	}
	h.start(rec.ID, attemptOf("p1", 0))
	h.start(rec.ID, attemptOf("p2", 0))
	ok, err := h.s.Finish(h.ctx, rec.ID, wonEntry(&rec, "p1", 1000))
	if time.Since(start) >= ttl/2 {
		t.Skipf("making the round took %v, too close to its ttl %v", time.Since(start), ttl)
	}
	if err != nil || !ok {
		t.Fatalf("Finish = %v, %v", ok, err)
	}
	time.Sleep(time.Until(start.Add(ttl + 200*time.Millisecond)))
	if _, err := h.s.Load(h.ctx, rec.ID); !errors.Is(err, match.ErrNotFound) {
		t.Fatalf("Load after the ttl: %v, want match.ErrNotFound", err)
	}
	if _, err := h.s.Board(h.ctx, rec.ID, 10, "", 0); !errors.Is(err, match.ErrNotFound) {
		t.Fatalf("Board after the ttl: %v, want match.ErrNotFound", err)
	}
	h.create(rec)
	if _, err := h.s.Attempt(h.ctx, rec.ID, "p1"); !errors.Is(err, match.ErrNotFound) {
		t.Fatalf("the new round has the old one's attempt: %v", err)
	}
	page, err := h.s.Board(h.ctx, rec.ID, 10, "p1", 1)
	if err != nil || page.Players != 0 || page.Finished != 0 || len(page.Top) != 0 {
		t.Fatalf("Board of the new round = %+v, %v; want it empty", page, err)
	}
	if got, next, err := h.s.Attempts(h.ctx, rec.ID, "", 10); err != nil || len(got) != 0 || next != "" {
		t.Fatalf("Attempts of the new round = %v, %q, %v; want none", got, next, err)
	}
}
