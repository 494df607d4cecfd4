package storetest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"klondike/lobby/challenge"
)

// RunRecords runs the conformance suite of challenge.RecordStore; newStore
// returns the store a subtest uses. Subtests run in parallel with player
// and game ids of their own, so a factory may hand all of them one store.
//
//	func TestRecordsConformance(t *testing.T) {
//		storetest.RunRecords(t, func(*testing.T) challenge.RecordStore { return memstore.NewChallenges() })
//	}
func RunRecords(t *testing.T, newStore func(t *testing.T) challenge.RecordStore) {
	t.Helper()
	var runID atomic.Int64
	stamp := time.Now().UnixNano()
	tests := []struct {
		name string
		fn   func(t *testing.T, h *recordsHarness)
	}{
		{"PlayedWonBestFastest", testRecordCounts},
		{"CountedOnce", testRecordCountedOnce},
		{"DailyStreak", testDailyStreak},
		{"BrokenStreak", testBrokenStreak},
		{"Variants", testRecordVariants},
		{"ConcurrentAdds", testRecordConcurrent},
		{"PlayersAreIsolated", testRecordIsolation},
		{"RecordsAreCopies", testRecordCopies},
		{"RecentNewestFirst", testRecent},
		{"RecentCountedOnce", testRecentCountedOnce},
		{"DeleteRecords", testDeleteRecords},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			t.Cleanup(cancel)
			tc.fn(t, &recordsHarness{
				t: t, s: newStore(t), ctx: ctx,
				prefix: fmt.Sprintf("rec%x-%d-%s", stamp, runID.Add(1), tc.name),
			})
		})
	}
}

// recordsHarness carries a subtest's store and makes its ids.
type recordsHarness struct {
	t      *testing.T
	s      challenge.RecordStore
	ctx    context.Context
	prefix string
}

func (h *recordsHarness) player(name string) string { return h.prefix + "-" + name }
func (h *recordsHarness) game(n int) string         { return fmt.Sprintf("%s-g%d", h.prefix, n) }

// add counts g for the player and wants it counted (or not: want).
func (h *recordsHarness) add(player string, g challenge.GameResult, want bool) {
	h.t.Helper()
	if got, err := h.s.AddResult(h.ctx, player, g); err != nil || got != want {
		h.t.Fatalf("AddResult(%s, %+v) = %v, %v; want %v", player, g, got, err, want)
	}
}

// records returns the player's records.
func (h *recordsHarness) records(player string) []challenge.VariantRecord {
	h.t.Helper()
	rs, err := h.s.Records(h.ctx, player)
	if err != nil {
		h.t.Fatalf("Records(%s): %v", player, err)
	}
	return rs
}

// want fails the test unless the player's records are want.
func (h *recordsHarness) want(player string, want ...challenge.VariantRecord) {
	h.t.Helper()
	got := h.records(player)
	if !slices.EqualFunc(got, want, sameVariantRecord) {
		h.t.Fatalf("Records(%s):\n got %s\nwant %s", player, showRecords(got), showRecords(want))
	}
}

func sameVariantRecord(a, b challenge.VariantRecord) bool {
	eq := func(x, y *int) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	eq64 := func(x, y *int64) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	same := eq(a.BestScore, b.BestScore) && eq64(a.FastestMs, b.FastestMs)
	a.BestScore, b.BestScore, a.FastestMs, b.FastestMs = nil, nil, nil, nil
	return same && a == b
}

func showRecords(rs []challenge.VariantRecord) string {
	s := "["
	for _, r := range rs {
		best, fast := "nil", "nil"
		if r.BestScore != nil {
			best = fmt.Sprint(*r.BestScore)
		}
		if r.FastestMs != nil {
			fast = fmt.Sprint(*r.FastestMs)
		}
		s += fmt.Sprintf(" {%s played %d won %d best %s fastest %s streak %d best %d last %q}",
			r.Variant, r.Played, r.Won, best, fast, r.DailyStreak, r.BestDailyStreak, r.LastDaily)
	}
	return s + " ]"
}

// record returns the record of the results, counted by VariantRecord.Add.
func record(gs ...challenge.GameResult) challenge.VariantRecord {
	var v challenge.VariantRecord
	for _, g := range gs {
		v.Add(g)
	}
	return v
}

func ptr[T any](v T) *T { return &v }

func testRecordCounts(t *testing.T, h *recordsHarness) {
	p := h.player("p")
	gs := []challenge.GameResult{
		{GameID: h.game(1), Variant: "draw3", Score: 300},
		{GameID: h.game(2), Variant: "draw3", Won: true, Score: 800, ElapsedMs: 200_000},
		{GameID: h.game(3), Variant: "draw3", Won: true, Score: 700, ElapsedMs: 150_000},
		{GameID: h.game(4), Variant: "draw3", Score: 900},
		{GameID: h.game(5), Variant: "draw3", Won: true, Score: 600, ElapsedMs: 180_000},
	}
	h.want(p)
	h.add(p, gs[0], true)
	h.want(p, challenge.VariantRecord{Variant: "draw3", Played: 1, BestScore: ptr(300)})
	for _, g := range gs[1:] {
		h.add(p, g, true)
	}
	want := challenge.VariantRecord{Variant: "draw3", Played: 5, Won: 3, BestScore: ptr(900), FastestMs: ptr[int64](150_000)}
	h.want(p, want)
	h.want(p, record(gs...))
}

func testRecordCountedOnce(t *testing.T, h *recordsHarness) {
	p := h.player("p")
	g := challenge.GameResult{GameID: h.game(1), Variant: "draw1", Won: true, Score: 500, ElapsedMs: 90_000, Day: "2026-12-05"}
	h.add(p, g, true)
	h.add(p, g, false)
	again := g
	again.Score, again.ElapsedMs = 9000, 1
	h.add(p, again, false)
	again.Variant = "draw3"
	h.add(p, again, false) // a game is counted once, in whichever variant
	h.want(p, record(g))
	// The same game id counts for another player.
	h.add(h.player("q"), g, true)

	// One new game counted from many nodes at once: once.
	g2 := challenge.GameResult{GameID: h.game(2), Variant: "draw1", Score: 100}
	var counted atomic.Int64
	var wg sync.WaitGroup
	for range 12 {
		wg.Go(func() {
			ok, err := h.s.AddResult(h.ctx, p, g2)
			if err != nil {
				t.Errorf("AddResult: %v", err)
			}
			if ok {
				counted.Add(1)
			}
		})
	}
	wg.Wait()
	if counted.Load() != 1 {
		t.Fatalf("a game counted by 12 nodes at once: %d counted it", counted.Load())
	}
	h.want(p, record(g, g2))
}

// testDailyStreak: consecutive days of daily games make a streak; other
// games and a second daily game of a day leave it.
func testDailyStreak(t *testing.T, h *recordsHarness) {
	p := h.player("p")
	days := []string{"2026-12-05", "2026-12-06", "", "2026-12-07", "2026-12-07", "2026-12-06", "2026-12-31", "2027-01-01"}
	var gs []challenge.GameResult
	for i, d := range days {
		g := challenge.GameResult{GameID: h.game(i), Variant: "draw3", Score: 100 * i, Day: d}
		h.add(p, g, true)
		gs = append(gs, g)
		if i == 4 {
			h.want(p, challenge.VariantRecord{
				Variant: "draw3", Played: 5, BestScore: ptr(400), DailyStreak: 3, BestDailyStreak: 3, LastDaily: "2026-12-07",
			})
		}
	}
	want := record(gs...)
	if want.DailyStreak != 2 || want.BestDailyStreak != 3 || want.LastDaily != "2027-01-01" {
		t.Fatalf("VariantRecord.Add disagrees with the suite: %s", showRecords([]challenge.VariantRecord{want}))
	}
	h.want(p, want)
}

// testBrokenStreak: a day without a daily game restarts the streak at 1,
// and AsOf shows a streak broken by yesterday.
func testBrokenStreak(t *testing.T, h *recordsHarness) {
	p := h.player("p")
	for i, d := range []string{"2026-12-05", "2026-12-06", "2026-12-09"} {
		h.add(p, challenge.GameResult{GameID: h.game(i), Variant: "draw1", Won: i == 1, Score: 10, ElapsedMs: 60_000, Day: d}, true)
	}
	rs := h.records(p)
	if len(rs) != 1 || rs[0].DailyStreak != 1 || rs[0].BestDailyStreak != 2 || rs[0].LastDaily != "2026-12-09" {
		t.Fatalf("after a broken streak: %s; want streak 1, best 2", showRecords(rs))
	}
	h.add(p, challenge.GameResult{GameID: h.game(3), Variant: "draw1", Score: 10, Day: "2026-12-10"}, true)
	rs = h.records(p)
	for _, c := range []struct {
		today  string
		streak int
	}{{"2026-12-10", 2}, {"2026-12-11", 2}, {"2026-12-12", 0}, {"2027-03-01", 0}} {
		got := rs[0].AsOf(c.today)
		if got.DailyStreak != c.streak || got.BestDailyStreak != 2 || got.Played != 4 {
			t.Fatalf("AsOf(%s): %s; want streak %d, best 2", c.today, showRecords([]challenge.VariantRecord{got}), c.streak)
		}
	}
	if rs[0].DailyStreak != 2 {
		t.Fatal("AsOf changed the record it was called on")
	}
}

func testRecordVariants(t *testing.T, h *recordsHarness) {
	p := h.player("p")
	gs := []challenge.GameResult{
		{GameID: h.game(1), Variant: "draw3-vegas", Score: -52},
		{GameID: h.game(2), Variant: "draw3", Won: true, Score: 900, ElapsedMs: 100_000},
		{GameID: h.game(3), Variant: "draw1", Score: 50},
		{GameID: h.game(4), Variant: "draw3-vegas", Score: 20},
	}
	for _, g := range gs {
		h.add(p, g, true)
	}
	h.want(p, record(gs[2]), record(gs[1]), record(gs[0], gs[3]))
	if rs := h.records(h.player("nobody")); len(rs) != 0 {
		t.Fatalf("Records of a player with no game: %s", showRecords(rs))
	}
}

// testRecordConcurrent: a player's games counted at once from many nodes
// all count.
func testRecordConcurrent(t *testing.T, h *recordsHarness) {
	const nodes, each = 16, 3
	p := h.player("p")
	var wg sync.WaitGroup
	for i := range nodes {
		wg.Go(func() {
			for j := range each {
				n := i*each + j
				g := challenge.GameResult{
					GameID: h.game(n), Variant: []string{"draw1", "draw3"}[n%2], Won: n%3 == 0, Score: n, ElapsedMs: int64(1000 + n),
					Finished: finishedAt.Add(time.Duration(n) * time.Second),
				}
				if ok, err := h.s.AddResult(h.ctx, p, g); err != nil || !ok {
					t.Errorf("AddResult(%+v) = %v, %v", g, ok, err)
				}
			}
		})
	}
	wg.Wait()
	rs := h.records(p)
	if len(rs) != 2 {
		t.Fatalf("records: %s", showRecords(rs))
	}
	for v, r := range rs {
		var won int
		for n := v; n < nodes*each; n += 2 {
			if n%3 == 0 {
				won++
			}
		}
		best := nodes*each - 2 + v
		if r.Played != nodes*each/2 || r.Won != won || r.BestScore == nil || *r.BestScore != best {
			t.Fatalf("record %d after concurrent adds: %s; want played %d, won %d, best %d", v, showRecords(rs), nodes*each/2, won, best)
		}
	}
	// The recent results are the last challenge.MaxRecent to finish,
	// whatever order they were counted in.
	recent := h.recent(p, 100)
	var scores []int
	for _, g := range recent {
		scores = append(scores, g.Score)
	}
	var want []int
	for n := nodes*each - 1; n >= nodes*each-challenge.MaxRecent; n-- {
		want = append(want, n)
	}
	if !slices.Equal(scores, want) {
		t.Fatalf("recent results after concurrent adds: games %v, want %v", scores, want)
	}
}

func testRecordIsolation(t *testing.T, h *recordsHarness) {
	a, b := h.player("a"), h.player("b")
	ga := challenge.GameResult{GameID: h.game(1), Variant: "draw3", Won: true, Score: 700, ElapsedMs: 100_000, Day: "2026-12-05"}
	gb := challenge.GameResult{GameID: h.game(2), Variant: "draw3", Score: 5}
	h.add(a, ga, true)
	h.add(b, gb, true)
	h.want(a, record(ga))
	h.want(b, record(gb))
}

func testRecordCopies(t *testing.T, h *recordsHarness) {
	p := h.player("p")
	g := challenge.GameResult{GameID: h.game(1), Variant: "draw3", Won: true, Score: 700, ElapsedMs: 100_000}
	h.add(p, g, true)
	rs := h.records(p)
	*rs[0].BestScore, *rs[0].FastestMs = 1, 1
	h.want(p, record(g))
}

// finishedAt is when the suite's games finish, in a zone not UTC: a
// result's Finished comes back as the same instant.
var finishedAt = time.Date(2026, 12, 5, 13, 14, 15, 123456789, time.FixedZone("", -5*3600))

// recent returns the player's recent results.
func (h *recordsHarness) recent(player string, limit int) []challenge.GameResult {
	h.t.Helper()
	gs, err := h.s.Recent(h.ctx, player, limit)
	if err != nil {
		h.t.Fatalf("Recent(%s, %d): %v", player, limit, err)
	}
	return gs
}

func sameResult(a, b challenge.GameResult) bool {
	same := a.Finished.Equal(b.Finished)
	a.Finished, b.Finished = time.Time{}, time.Time{}
	return same && a == b
}

// wantRecent fails the test unless the player's recent results, up to
// limit, are want.
func (h *recordsHarness) wantRecent(player string, limit int, want ...challenge.GameResult) {
	h.t.Helper()
	if got := h.recent(player, limit); !slices.EqualFunc(got, want, sameResult) {
		h.t.Fatalf("Recent(%s, %d):\n got %+v\nwant %+v", player, limit, got, want)
	}
}

// testRecent: a player's recent results are the last challenge.MaxRecent
// to finish, newest first, every field as counted, whatever order they
// were counted in; a result older than all those kept is counted but not
// kept among them.
func testRecent(t *testing.T, h *recordsHarness) {
	p := h.player("p")
	const n = challenge.MaxRecent + 5
	gs := make([]challenge.GameResult, n) // gs[i] finished i minutes after finishedAt
	for i := range gs {
		gs[i] = challenge.GameResult{
			GameID: h.game(i), Variant: []string{"draw1", "draw3"}[i%2], Won: i%3 == 0, Score: 10 * i,
			ElapsedMs: int64(60_000 + i), Finished: finishedAt.Add(time.Duration(i) * time.Minute),
		}
		if i%4 == 0 {
			gs[i].Day = "2026-12-05"
		}
	}
	h.wantRecent(p, 10)
	for k := range n {
		h.add(p, gs[(7*k)%n], true) // every result once, in a scrambled order
	}
	newest := slices.Clone(gs[n-challenge.MaxRecent:])
	slices.Reverse(newest)
	h.wantRecent(p, 100, newest...)
	h.wantRecent(p, challenge.MaxRecent, newest...)
	h.wantRecent(p, 3, newest[:3]...)
	h.wantRecent(p, 1, newest[0])
	if rs := h.records(p); len(rs) != 2 || rs[0].Played+rs[1].Played != n {
		t.Fatalf("records after %d results: %s", n, showRecords(rs))
	}
	// One older than all those kept: counted, not kept.
	old := challenge.GameResult{GameID: h.game(n), Variant: "draw1", Score: 1, Finished: finishedAt.Add(-time.Hour)}
	h.add(p, old, true)
	h.wantRecent(p, 100, newest...)
	// A newer one: kept, and the oldest kept goes.
	fresh := challenge.GameResult{GameID: h.game(n + 1), Variant: "draw3", Won: true, Score: 2, ElapsedMs: 5, Finished: finishedAt.Add(time.Hour)}
	h.add(p, fresh, true)
	h.wantRecent(p, 100, append([]challenge.GameResult{fresh}, newest[:challenge.MaxRecent-1]...)...)

	h.wantRecent(h.player("nobody"), 10)
	if got, err := h.s.Recent(h.ctx, p, 0); err == nil {
		t.Fatalf("Recent with limit 0 = %v, no error", got)
	}
}

// testRecentCountedOnce: a result counted again (its GameID) is not listed
// twice, whatever else it says; other players' results are their own.
func testRecentCountedOnce(t *testing.T, h *recordsHarness) {
	p, q := h.player("p"), h.player("q")
	g1 := challenge.GameResult{GameID: h.game(1), Variant: "draw3", Score: 100, Finished: finishedAt}
	g2 := challenge.GameResult{GameID: h.game(2), Variant: "draw3", Won: true, Score: 700, ElapsedMs: 90_000, Finished: finishedAt.Add(time.Minute)}
	h.add(p, g1, true)
	h.add(p, g2, true)
	h.add(p, g1, false)
	again := g1
	again.Score, again.Finished = 5, finishedAt.Add(time.Hour)
	h.add(p, again, false)
	h.wantRecent(p, 10, g2, g1)

	// The same game counted from many nodes at once: listed once.
	g3 := challenge.GameResult{GameID: h.game(3), Variant: "draw1", Score: 1, Finished: finishedAt.Add(2 * time.Minute)}
	var wg sync.WaitGroup
	for range 12 {
		wg.Go(func() {
			if _, err := h.s.AddResult(h.ctx, p, g3); err != nil {
				t.Errorf("AddResult: %v", err)
			}
		})
	}
	wg.Wait()
	h.wantRecent(p, 10, g3, g2, g1)

	gq := challenge.GameResult{GameID: h.game(1), Variant: "draw1", Score: 3, Finished: finishedAt.Add(-time.Minute)}
	h.add(q, gq, true)
	h.wantRecent(q, 10, gq)
	h.wantRecent(p, 10, g3, g2, g1)
}

// testDeleteRecords: DeleteRecords forgets the player's records and recent
// results, and no other player's; the player may then start afresh.
func testDeleteRecords(t *testing.T, h *recordsHarness) {
	p, q := h.player("p"), h.player("q")
	for i := range 3 {
		h.add(p, challenge.GameResult{GameID: h.game(i), Variant: "draw3", Score: i, Day: "2026-12-0" + fmt.Sprint(5+i), Finished: finishedAt.Add(time.Duration(i) * time.Minute)}, true)
	}
	gq := challenge.GameResult{GameID: h.game(0), Variant: "draw1", Won: true, Score: 9, ElapsedMs: 9, Finished: finishedAt}
	h.add(q, gq, true)
	if err := h.s.DeleteRecords(h.ctx, p); err != nil {
		t.Fatalf("DeleteRecords: %v", err)
	}
	h.want(p)
	h.wantRecent(p, 10)
	h.want(q, record(gq))
	h.wantRecent(q, 10, gq)
	for _, who := range []string{p, h.player("nobody")} {
		if err := h.s.DeleteRecords(h.ctx, who); err != nil {
			t.Fatalf("DeleteRecords(%s) with nothing to forget: %v", who, err)
		}
	}
	g := challenge.GameResult{GameID: h.game(10), Variant: "draw3", Score: 50, Day: "2026-12-20", Finished: finishedAt.Add(time.Hour)}
	h.add(p, g, true)
	h.want(p, record(g))
	h.wantRecent(p, 10, g)
}
