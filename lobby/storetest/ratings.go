package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"klondike/lobby"
	"klondike/lobby/rating"
	"klondike/match"
)

// RunRatings runs the conformance suite of lobby.Ratings. Every call of
// newRatings must return a client of one and the same store, as the nodes
// of a deployment each have theirs. Subtests run in parallel with rating
// keys, players and rounds of their own.
//
//	func TestRatingsConformance(t *testing.T) {
//		r := memstore.NewRatings()
//		storetest.RunRatings(t, func(*testing.T) lobby.Ratings { return r })
//	}
func RunRatings(t *testing.T, newRatings func(t *testing.T) lobby.Ratings) {
	t.Helper()
	var runID atomic.Int64
	stamp := time.Now().UnixNano()
	tests := []struct {
		name string
		fn   func(t *testing.T, h *ratingsHarness)
	}{
		{"NewPlayer", testRatingNew},
		{"ApplyWrites", testRatingApply},
		{"ApplyOnce", testRatingApplyOnce},
		{"Moved", testRatingMoved},
		{"LadderOrder", testLadderOrder},
		{"LadderPages", testLadderPages},
		{"LadderMoves", testLadderMoves},
		{"ProvisionalOffLadder", testLadderProvisional},
		{"LadderLapse", testLadderLapse},
		{"HistoryBound", testRatingHistory},
		{"Of", testRatingsOf},
		{"Forget", testRatingsForget},
		{"RoundNotFound", testRatedRoundNotFound},
		{"ConcurrentApplies", testRatingConcurrent},
		{"ConcurrentSameRound", testRatingConcurrentSameRound},
		{"ClientsShare", testRatingsShared},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			t.Cleanup(cancel)
			tc.fn(t, &ratingsHarness{
				t: t, r: newRatings(t), newRatings: newRatings, ctx: ctx,
				prefix: fmt.Sprintf("ra%x-%d-%s", stamp, runID.Add(1), tc.name),
			})
		})
	}
}

// ratingsHarness carries a subtest's client and makes its names.
type ratingsHarness struct {
	t          *testing.T
	r          lobby.Ratings
	newRatings func(t *testing.T) lobby.Ratings
	ctx        context.Context
	prefix     string
	n          int
}

// ratingT0 is the suite's clock at its start: the stores read the ladder
// by the caller's clock, whatever it says.
var ratingT0 = time.Date(2031, 3, 14, 15, 9, 26, 0, time.UTC)

// key returns a rating key no other subtest or run uses.
func (h *ratingsHarness) key() string {
	h.n++
	return fmt.Sprintf("%s/klondike/%d", h.prefix, h.n)
}

// player returns a player id no other subtest or run uses; ids of one
// subtest order as their names do.
func (h *ratingsHarness) player(name string) string { return h.prefix + "-" + name }

// roundID returns a round id no other subtest or run uses.
func (h *ratingsHarness) roundID() string {
	h.n++
	return fmt.Sprintf("%s-r%d", h.prefix, h.n)
}

// seat is a player of a round the harness rates, and the rating they end
// it with.
type seat struct {
	id        string
	rating    float64
	deviation float64
}

// round makes a rated round at at under key: each seat from its stored
// rating to the seat's, one round more, at at. Names are "name of" and
// the id.
func (h *ratingsHarness) round(key string, at time.Time, seats ...seat) lobby.RatedRound {
	h.t.Helper()
	ids := make([]string, len(seats))
	for i, s := range seats {
		ids[i] = s.id
	}
	before := h.get(key, ids...)
	rr := lobby.RatedRound{RoundID: h.roundID(), MatchID: h.prefix + "-m", Key: key, At: at}
	for i, s := range seats {
		after := rating.Rating{Rating: s.rating, Deviation: s.deviation, Volatility: 0.06, Rounds: before[i].Rounds + 1, At: at}
		rr.Changes = append(rr.Changes, lobby.RatedPlayer{PlayerID: s.id, Name: "name of " + s.id, Place: i + 1, Before: before[i], After: after})
	}
	return rr
}

// rate makes a round as round does and applies it.
func (h *ratingsHarness) rate(key string, at time.Time, seats ...seat) lobby.RatedRound {
	h.t.Helper()
	rr := h.round(key, at, seats...)
	h.apply(h.r, rr)
	return rr
}

// apply wants rr applied, and the record kept to be rr.
func (h *ratingsHarness) apply(r lobby.Ratings, rr lobby.RatedRound) {
	h.t.Helper()
	kept, applied, err := r.Apply(h.ctx, rr)
	if err != nil || !applied {
		h.t.Fatalf("Apply(%s) = %v, %v; want applied", rr.RoundID, applied, err)
	}
	h.wantSameRound("Apply's record", kept, rr)
}

func (h *ratingsHarness) get(key string, ids ...string) []rating.Rating {
	h.t.Helper()
	got, err := h.r.Get(h.ctx, key, ids)
	if err != nil {
		h.t.Fatalf("Get(%s, %q): %v", key, ids, err)
	}
	if len(got) != len(ids) {
		h.t.Fatalf("Get(%s, %q) = %d ratings", key, ids, len(got))
	}
	return got
}

// wantRatings wants the players' stored ratings under key.
func (h *ratingsHarness) wantRatings(key string, ids []string, want ...rating.Rating) {
	h.t.Helper()
	got := h.get(key, ids...)
	for i := range ids {
		if !sameRating(got[i], want[i]) {
			h.t.Fatalf("Get(%s) of %s = %+v; want %+v", key, ids[i], got[i], want[i])
		}
	}
}

// wantLadder wants a page of key's ladder at now: the players, best first,
// from place from, and the ladder's length.
func (h *ratingsHarness) wantLadder(key string, from, limit int, now time.Time, total int, ids ...string) []lobby.LadderEntry {
	h.t.Helper()
	page, n, err := h.r.Ladder(h.ctx, key, from, limit, now)
	if err != nil {
		h.t.Fatalf("Ladder(%s, %d, %d) at t0+%v: %v", key, from, limit, now.Sub(ratingT0), err)
	}
	var got []string
	for _, e := range page {
		got = append(got, e.PlayerID)
	}
	if n != total || strings.Join(got, " ") != strings.Join(ids, " ") {
		h.t.Fatalf("Ladder(%s, %d, %d) at t0+%v = %q, total %d; want %q, total %d",
			key, from, limit, now.Sub(ratingT0), got, n, ids, total)
	}
	for i, e := range page {
		if e.Place != from+i {
			h.t.Fatalf("Ladder(%s, %d, %d): %s's place = %d; want %d", key, from, limit, e.PlayerID, e.Place, from+i)
		}
	}
	return page
}

func (h *ratingsHarness) wantPlace(key, id string, now time.Time, want int) {
	h.t.Helper()
	got, err := h.r.Place(h.ctx, key, id, now)
	if err != nil || got != want {
		h.t.Fatalf("Place(%s, %s) at t0+%v = %d, %v; want %d", key, id, now.Sub(ratingT0), got, err, want)
	}
}

func (h *ratingsHarness) history(key, id string, limit int) []lobby.RatingPoint {
	h.t.Helper()
	got, err := h.r.History(h.ctx, key, id, limit)
	if err != nil {
		h.t.Fatalf("History(%s, %s, %d): %v", key, id, limit, err)
	}
	return got
}

func (h *ratingsHarness) of(id string) map[string]rating.Rating {
	h.t.Helper()
	got, err := h.r.Of(h.ctx, id)
	if err != nil {
		h.t.Fatalf("Of(%s): %v", id, err)
	}
	return got
}

// wantRound wants the record kept of a round to be rr.
func (h *ratingsHarness) wantRound(r lobby.Ratings, rr lobby.RatedRound) {
	h.t.Helper()
	got, err := r.Round(h.ctx, rr.RoundID)
	if err != nil {
		h.t.Fatalf("Round(%s): %v", rr.RoundID, err)
	}
	h.wantSameRound("Round("+rr.RoundID+")", got, rr)
}

// wantSameRound compares rated rounds as their JSON, which is what a store
// keeps: times to the nanosecond whatever their zone.
func (h *ratingsHarness) wantSameRound(what string, got, want lobby.RatedRound) {
	h.t.Helper()
	g, err1 := json.Marshal(got)
	w, err2 := json.Marshal(want)
	if err := errors.Join(err1, err2); err != nil {
		h.t.Fatal(err)
	}
	var gv, wv any
	_ = json.Unmarshal(g, &gv)
	_ = json.Unmarshal(w, &wv)
	if g2, w2 := fmt.Sprint(normalTimes(gv)), fmt.Sprint(normalTimes(wv)); g2 != w2 {
		h.t.Fatalf("%s:\n got %s\nwant %s", what, g, w)
	}
}

// normalTimes rewrites every time in a decoded JSON value in UTC.
func normalTimes(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			v[k] = normalTimes(x)
		}
	case []any:
		for i, x := range v {
			v[i] = normalTimes(x)
		}
	case string:
		if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
			return t.UTC().Format(time.RFC3339Nano)
		}
	}
	return v
}

func sameRating(a, b rating.Rating) bool {
	return a.Rating == b.Rating && a.Deviation == b.Deviation && a.Volatility == b.Volatility &&
		a.Rounds == b.Rounds && a.At.Equal(b.At)
}

// A player never rated under a key has a new player's rating there.
func testRatingNew(t *testing.T, h *ratingsHarness) {
	key, a, b := h.key(), h.player("a"), h.player("b")
	h.wantRatings(key, []string{a, b}, rating.New(), rating.New())
	if got := h.get(key); len(got) != 0 {
		t.Fatalf("Get of no one = %+v", got)
	}
	if got := h.history(key, a, 10); len(got) != 0 {
		t.Fatalf("History of a new player = %+v", got)
	}
	if got := h.of(a); len(got) != 0 {
		t.Fatalf("Of(a new player) = %+v", got)
	}
	h.wantPlace(key, a, ratingT0, -1)
	h.wantLadder(key, 0, 10, ratingT0, 0)
}

// Apply writes every After, a point of each player's history and the
// round's record; other keys are untouched.
func testRatingApply(t *testing.T, h *ratingsHarness) {
	key, a, b := h.key(), h.player("a"), h.player("b")
	rr := h.round(key, ratingT0, seat{a, 1662.5, 290.25}, seat{b, 1337.5, 290.25})
	rr.Apart = [][2]string{{a, b}}
	h.apply(h.r, rr)
	h.wantRatings(key, []string{a, b, h.player("c")}, rr.Changes[0].After, rr.Changes[1].After, rating.New())
	h.wantRatings(h.key(), []string{a}, rating.New())
	h.wantRound(h.r, rr)
	for _, c := range rr.Changes {
		got := h.history(key, c.PlayerID, 10)
		want := lobby.RatingPoint{RoundID: rr.RoundID, At: ratingT0, Rating: c.After.Rating, Deviation: c.After.Deviation}
		if len(got) != 1 || got[0].RoundID != want.RoundID || !got[0].At.Equal(want.At) ||
			got[0].Rating != want.Rating || got[0].Deviation != want.Deviation {
			t.Fatalf("History(%s) = %+v; want [%+v]", c.PlayerID, got, want)
		}
	}
}

// A round applied again, even with other changes, changes nothing and
// gives the record kept.
func testRatingApplyOnce(t *testing.T, h *ratingsHarness) {
	key, a, b := h.key(), h.player("a"), h.player("b")
	rr := h.rate(key, ratingT0, seat{a, 1600, 100}, seat{b, 1400, 100})
	again := h.round(key, ratingT0.Add(time.Minute), seat{a, 1700, 90}, seat{b, 1300, 90})
	again.RoundID = rr.RoundID
	for _, try := range []lobby.RatedRound{rr, again} {
		kept, applied, err := h.r.Apply(h.ctx, try)
		if err != nil || applied {
			t.Fatalf("Apply(%s) again = %v, %v; want not applied", try.RoundID, applied, err)
		}
		h.wantSameRound("the record kept", kept, rr)
	}
	h.wantRatings(key, []string{a, b}, rr.Changes[0].After, rr.Changes[1].After)
	if got := h.history(key, a, 10); len(got) != 1 {
		t.Fatalf("History after a round applied twice = %+v; want one point", got)
	}
	h.wantLadder(key, 0, 10, ratingT0, 2, a, b)
}

// A round with a Before that is no longer the stored rating writes
// nothing, for any of its players; the same round recomputed is applied.
func testRatingMoved(t *testing.T, h *ratingsHarness) {
	key, a, b, c := h.key(), h.player("a"), h.player("b"), h.player("c")
	first := h.rate(key, ratingT0, seat{a, 1600, 100}, seat{c, 1500, 100})
	stale := h.round(key, ratingT0.Add(time.Hour), seat{a, 1650, 95}, seat{b, 1450, 100})
	stale.Changes[0].Before = rating.New() // as read before first
	ahead := h.round(key, ratingT0.Add(time.Hour), seat{b, 1450, 100}, seat{c, 1550, 95})
	ahead.Changes[0].Before.Rounds = 3 // more rounds than b has played
	for _, rr := range []lobby.RatedRound{stale, ahead} {
		if _, applied, err := h.r.Apply(h.ctx, rr); !errors.Is(err, lobby.ErrRatingMoved) || applied {
			t.Fatalf("Apply(%s) with a Before moved = %v, %v; want lobby.ErrRatingMoved", rr.RoundID, applied, err)
		}
		if _, err := h.r.Round(h.ctx, rr.RoundID); !errors.Is(err, match.ErrNotFound) {
			t.Fatalf("Round(%s) refused = %v; want match.ErrNotFound", rr.RoundID, err)
		}
	}
	h.wantRatings(key, []string{a, b, c}, first.Changes[0].After, rating.New(), first.Changes[1].After)
	if got := h.history(key, b, 10); len(got) != 0 {
		t.Fatalf("History(b) after refused rounds = %+v", got)
	}
	if got := h.history(key, a, 10); len(got) != 1 {
		t.Fatalf("History(a) after a refused round = %+v; want one point", got)
	}
	h.wantLadder(key, 0, 10, ratingT0, 2, a, c)

	// Read again and recomputed, under the same round id.
	retry := h.round(key, ratingT0.Add(time.Hour), seat{a, 1650, 95}, seat{b, 1450, 100})
	retry.RoundID = stale.RoundID
	h.apply(h.r, retry)
	h.wantRatings(key, []string{a, b}, retry.Changes[0].After, retry.Changes[1].After)
	h.wantRound(h.r, retry)
}

// The ladder is by rating, best first, equal ratings by player id,
// whatever order they were rated in; each entry has the name and rating
// of its player's last round.
func testLadderOrder(t *testing.T, h *ratingsHarness) {
	key := h.key()
	x, a, b, c, d, e := h.player("x"), h.player("a"), h.player("b"), h.player("c"), h.player("d"), h.player("e")
	h.rate(key, ratingT0, seat{c, 1650, 80}, seat{d, 1500, 80})
	h.rate(key, ratingT0, seat{e, 1400, 80}, seat{a, 1650, 80})
	h.rate(key, ratingT0, seat{x, 1800.75, 80}, seat{b, 1650, 80})
	page := h.wantLadder(key, 0, 10, ratingT0, 6, x, a, b, c, d, e)
	for i, id := range []string{x, a, b, c, d, e} {
		h.wantPlace(key, id, ratingT0, i)
	}
	if page[0].Name != "name of "+x || page[0].Rating.Rating != 1800.75 || page[0].Rating.Deviation != 80 || page[0].Rating.Rounds != 1 {
		t.Fatalf("the ladder's first = %+v", page[0])
	}
	// A new name comes with the next round.
	rr := h.round(key, ratingT0.Add(time.Minute), seat{x, 1810, 75}, seat{d, 1490, 75})
	rr.Changes[0].Name = "x renamed"
	h.apply(h.r, rr)
	page = h.wantLadder(key, 0, 1, ratingT0.Add(time.Minute), 6, x)
	if page[0].Name != "x renamed" || !sameRating(page[0].Rating, rr.Changes[0].After) {
		t.Fatalf("the ladder's first after a round = %+v; want %q, %+v", page[0], "x renamed", rr.Changes[0].After)
	}
	h.wantPlace(key, h.player("nobody"), ratingT0, -1)
	h.wantPlace(h.key(), x, ratingT0, -1)
}

// Pages start at from and hold at most limit; the total is the whole
// ladder's.
func testLadderPages(t *testing.T, h *ratingsHarness) {
	key := h.key()
	ids := make([]string, 7)
	for i := range ids {
		ids[i] = h.player(fmt.Sprintf("p%d", i))
	}
	for i := len(ids) - 1; i >= 0; i-- { // worst first
		h.rate(key, ratingT0, seat{ids[i], 1900 - 50*float64(i), 60})
	}
	for _, c := range []struct{ from, limit, lo, hi int }{
		{0, 3, 0, 3}, {2, 2, 2, 4}, {3, 1, 3, 4}, {5, 10, 5, 7}, {0, 7, 0, 7},
		{7, 10, 7, 7}, {100, 5, 7, 7}, {0, 0, 0, 0}, {4, -1, 4, 4},
	} {
		h.wantLadder(key, c.from, c.limit, ratingT0, len(ids), ids[c.lo:c.hi]...)
	}
	h.wantLadder(h.key(), 0, 10, ratingT0, 0)
}

// A player's next round moves them on the ladder: one entry a player.
func testLadderMoves(t *testing.T, h *ratingsHarness) {
	key := h.key()
	a, b, c, x := h.player("a"), h.player("b"), h.player("c"), h.player("x")
	h.rate(key, ratingT0, seat{a, 1700, 70}, seat{b, 1600, 70}, seat{c, 1500, 70}, seat{x, 1800, 70})
	h.wantLadder(key, 0, 10, ratingT0, 4, x, a, b, c)
	h.rate(key, ratingT0.Add(time.Minute), seat{x, 1550, 65})
	h.wantLadder(key, 0, 10, ratingT0, 4, a, b, x, c)
	h.wantPlace(key, x, ratingT0, 2)
	h.rate(key, ratingT0.Add(2*time.Minute), seat{x, 1450, 60})
	h.wantLadder(key, 0, 10, ratingT0, 4, a, b, c, x)
	h.wantPlace(key, x, ratingT0, 3)
}

// Only established players are on the ladder: a deviation of
// rating.ProvisionalRD is established, one above it provisional, and a
// player whose round leaves them provisional leaves the ladder.
func testLadderProvisional(t *testing.T, h *ratingsHarness) {
	key := h.key()
	p1, p2, p3, p4 := h.player("p1"), h.player("p2"), h.player("p3"), h.player("p4")
	h.rate(key, ratingT0, seat{p1, 1700, 200}, seat{p2, 1600, rating.ProvisionalRD}, seat{p3, 1500, 80}, seat{p4, 1400, 350})
	h.wantLadder(key, 0, 10, ratingT0, 2, p2, p3)
	h.wantPlace(key, p1, ratingT0, -1)
	h.wantPlace(key, p4, ratingT0, -1)
	h.rate(key, ratingT0, seat{p3, 1550, rating.ProvisionalRD + 1}, seat{p4, 1450, 90})
	h.wantLadder(key, 0, 10, ratingT0, 2, p2, p4)
	h.wantPlace(key, p3, ratingT0, -1)
	h.wantPlace(key, p4, ratingT0, 1)
	if got := h.get(key, p1, p3); got[0].Rating != 1700 || got[1].Rating != 1550 {
		t.Fatalf("provisional players' ratings = %+v; want them kept off the ladder", got)
	}
	// At rating.ProvisionalRD exactly, any time away makes p2 provisional.
	h.wantLadder(key, 0, 10, ratingT0.Add(time.Second), 1, p4)
	h.wantPlace(key, p2, ratingT0.Add(time.Second), -1)
}

// lapse returns when r's deviation, grown by time away, passes
// rating.ProvisionalRD: φ* = sqrt(φ² + σ²·t) reaches φp at
// t = (φp² − φ²)/σ² periods after r.At, on the Glicko-2 scale.
func lapse(r rating.Rating) time.Time {
	const scale = 173.7178
	phi, phiP := r.Deviation/scale, rating.ProvisionalRD/scale
	t := (phiP*phiP - phi*phi) / (r.Volatility * r.Volatility)
	return r.At.Add(time.Duration(t * float64(rating.Period)))
}

// A player away long enough to be provisional again leaves the ladder
// then, not before, and is back with their next round.
func testLadderLapse(t *testing.T, h *ratingsHarness) {
	key := h.key()
	p, q := h.player("p"), h.player("q")
	rr := h.rate(key, ratingT0, seat{p, 1700, 50})
	later := ratingT0.Add(60 * 24 * time.Hour)
	h.rate(key, later, seat{q, 1600, 45})
	gone := lapse(rr.Changes[0].After)
	// The suite's own formula agrees with AsOf: 88 days and a third.
	if a, b := rr.Changes[0].After.AsOf(gone.Add(-time.Minute)), rr.Changes[0].After.AsOf(gone.Add(time.Minute)); a.Provisional() || !b.Provisional() || gone.Sub(ratingT0) < 88*24*time.Hour {
		t.Fatalf("lapse at t0+%v: deviation %v a minute before, %v after", gone.Sub(ratingT0), a.Deviation, b.Deviation)
	}
	h.wantLadder(key, 0, 10, gone.Add(-time.Minute), 2, p, q)
	h.wantPlace(key, p, gone.Add(-time.Minute), 0)
	h.wantLadder(key, 0, 10, gone.Add(time.Minute), 1, q)
	h.wantPlace(key, p, gone.Add(time.Minute), -1)
	h.wantPlace(key, q, gone.Add(time.Minute), 0)
	h.wantRatings(key, []string{p}, rr.Changes[0].After)

	back := gone.Add(24 * time.Hour)
	h.rate(key, back, seat{p, 1690, 60})
	h.wantLadder(key, 0, 10, back.Add(time.Minute), 2, p, q)
	h.wantPlace(key, p, back.Add(time.Minute), 0)
}

// A history keeps the last lobby.MaxRatingHistory points, oldest first.
func testRatingHistory(t *testing.T, h *ratingsHarness) {
	key, p := h.key(), h.player("p")
	var rounds []lobby.RatedRound
	for i := range lobby.MaxRatingHistory + 5 {
		rounds = append(rounds, h.rate(key, ratingT0.Add(time.Duration(i)*time.Minute), seat{p, 1500 + float64(i), 100}))
	}
	wantPoints := func(limit int, want []lobby.RatedRound) {
		t.Helper()
		got := h.history(key, p, limit)
		if len(got) != len(want) {
			t.Fatalf("History(%d) = %d points; want %d", limit, len(got), len(want))
		}
		for i, rr := range want {
			a := rr.Changes[0].After
			if got[i].RoundID != rr.RoundID || !got[i].At.Equal(rr.At) || got[i].Rating != a.Rating || got[i].Deviation != a.Deviation {
				t.Fatalf("History(%d)[%d] = %+v; want round %s at t0+%v, %v ± %v",
					limit, i, got[i], rr.RoundID, rr.At.Sub(ratingT0), a.Rating, a.Deviation)
			}
		}
	}
	n := len(rounds)
	wantPoints(1000, rounds[n-lobby.MaxRatingHistory:])
	wantPoints(lobby.MaxRatingHistory, rounds[n-lobby.MaxRatingHistory:])
	wantPoints(3, rounds[n-3:])
	wantPoints(1, rounds[n-1:])
	wantPoints(0, nil)
	wantPoints(-1, nil)
	if got := h.history(key, h.player("q"), 10); len(got) != 0 {
		t.Fatalf("History of a player never rated = %+v", got)
	}
}

// Of gives every key a player is rated under.
func testRatingsOf(t *testing.T, h *ratingsHarness) {
	k1, k2, p, q := h.key(), h.key(), h.player("p"), h.player("q")
	r1 := h.rate(k1, ratingT0, seat{p, 1600, 200}, seat{q, 1400, 200})
	r2 := h.rate(k2, ratingT0.Add(time.Hour), seat{p, 1550, 80})
	wantOf := func(id string, want map[string]rating.Rating) {
		t.Helper()
		got := h.of(id)
		ok := len(got) == len(want)
		for k, r := range want {
			ok = ok && sameRating(got[k], r)
		}
		if !ok {
			t.Fatalf("Of(%s) = %+v; want %+v", id, got, want)
		}
	}
	wantOf(p, map[string]rating.Rating{k1: r1.Changes[0].After, k2: r2.Changes[0].After})
	wantOf(q, map[string]rating.Rating{k1: r1.Changes[1].After})
	wantOf(h.player("r"), nil)
}

// Forget takes a player's ratings, histories and ladder entries from
// every key and leaves the rounds' records and the other players.
func testRatingsForget(t *testing.T, h *ratingsHarness) {
	k1, k2, p, q := h.key(), h.key(), h.player("p"), h.player("q")
	r1 := h.rate(k1, ratingT0, seat{p, 1600, 80}, seat{q, 1400, 80})
	r2 := h.rate(k2, ratingT0, seat{p, 1550, 90})
	if err := h.r.Forget(h.ctx, p); err != nil {
		t.Fatalf("Forget: %v", err)
	}
	h.wantRatings(k1, []string{p, q}, rating.New(), r1.Changes[1].After)
	h.wantRatings(k2, []string{p}, rating.New())
	for _, k := range []string{k1, k2} {
		if got := h.history(k, p, 10); len(got) != 0 {
			t.Fatalf("History(%s) of a player forgotten = %+v", k, got)
		}
		h.wantPlace(k, p, ratingT0, -1)
	}
	if got := h.history(k1, q, 10); len(got) != 1 {
		t.Fatalf("History of another player = %+v; want one point", got)
	}
	h.wantLadder(k1, 0, 10, ratingT0, 1, q)
	h.wantLadder(k2, 0, 10, ratingT0, 0)
	if got := h.of(p); len(got) != 0 {
		t.Fatalf("Of a player forgotten = %+v", got)
	}
	if got := h.of(q); len(got) != 1 {
		t.Fatalf("Of another player = %+v; want one key", got)
	}
	h.wantRound(h.r, r1)
	h.wantRound(h.r, r2)
	for _, id := range []string{p, h.player("never")} {
		if err := h.r.Forget(h.ctx, id); err != nil {
			t.Fatalf("Forget(%s) again: %v", id, err)
		}
	}
	// Rated again, from a new player's rating.
	r3 := h.rate(k1, ratingT0.Add(time.Hour), seat{p, 1520, 300})
	if r3.Changes[0].Before.Rounds != 0 {
		t.Fatalf("a player forgotten starts from %+v", r3.Changes[0].Before)
	}
}

func testRatedRoundNotFound(t *testing.T, h *ratingsHarness) {
	for _, id := range []string{h.roundID(), ""} {
		if rr, err := h.r.Round(h.ctx, id); !errors.Is(err, match.ErrNotFound) {
			t.Fatalf("Round(%q) = %+v, %v; want match.ErrNotFound", id, rr, err)
		}
	}
}

// Of rounds applied at once from the same Before of one player, exactly
// one is applied; the others write nothing, not even for their other
// players.
func testRatingConcurrent(t *testing.T, h *ratingsHarness) {
	key, p := h.key(), h.player("p")
	const tries = 8
	rounds := make([]lobby.RatedRound, tries)
	for i := range rounds {
		rounds[i] = h.round(key, ratingT0, seat{p, 1500 + float64(i), 250}, seat{h.player(fmt.Sprint("o", i)), 1500 - float64(i), 250})
	}
	var applied, moved atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, tries)
	for _, rr := range rounds {
		wg.Go(func() {
			_, ok, err := h.r.Apply(h.ctx, rr)
			switch {
			case errors.Is(err, lobby.ErrRatingMoved):
				moved.Add(1)
			case err != nil:
				errs <- err
			case ok:
				applied.Add(1)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if applied.Load() != 1 || moved.Load() != tries-1 {
		t.Fatalf("%d concurrent rounds from one Before: %d applied, %d moved; want 1 and %d", tries, applied.Load(), moved.Load(), tries-1)
	}
	got := h.get(key, p)[0]
	won := int(got.Rating - 1500)
	if got.Rounds != 1 || won < 0 || won >= tries || !sameRating(got, rounds[won].Changes[0].After) {
		t.Fatalf("p's rating = %+v; want one round's After", got)
	}
	for i, rr := range rounds {
		o := rr.Changes[1]
		want := rating.New()
		if i == won {
			want = o.After
		}
		h.wantRatings(key, []string{o.PlayerID}, want)
	}
	if got := h.history(key, p, 10); len(got) != 1 || got[0].RoundID != rounds[won].RoundID {
		t.Fatalf("History(p) = %+v; want round %s alone", got, rounds[won].RoundID)
	}
}

// One round applied by several nodes at once is applied once; every call
// gets its record.
func testRatingConcurrentSameRound(t *testing.T, h *ratingsHarness) {
	key, p, q := h.key(), h.player("p"), h.player("q")
	rr := h.round(key, ratingT0, seat{p, 1600, 250}, seat{q, 1400, 250})
	const tries = 8
	var applied atomic.Int64
	var wg sync.WaitGroup
	kept := make([]lobby.RatedRound, tries)
	errs := make([]error, tries)
	for i := range tries {
		wg.Go(func() {
			var ok bool
			kept[i], ok, errs[i] = h.r.Apply(h.ctx, rr)
			if ok {
				applied.Add(1)
			}
		})
	}
	wg.Wait()
	for i := range tries {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		h.wantSameRound("a concurrent Apply's record", kept[i], rr)
	}
	if applied.Load() != 1 {
		t.Fatalf("%d concurrent Applies of one round: %d applied; want 1", tries, applied.Load())
	}
	if got := h.history(key, p, 10); len(got) != 1 {
		t.Fatalf("History(p) = %+v; want one point", got)
	}
}

// Two clients of one store, as two nodes, see each other's writes.
func testRatingsShared(t *testing.T, h *ratingsHarness) {
	a, b := h.r, h.newRatings(t)
	key, p, q := h.key(), h.player("p"), h.player("q")
	rr := h.round(key, ratingT0, seat{p, 1600, 90}, seat{q, 1400, 90})
	h.apply(a, rr)
	h.wantRound(b, rr)
	if _, applied, err := b.Apply(h.ctx, rr); err != nil || applied {
		t.Fatalf("Apply through another client = %v, %v; want not applied", applied, err)
	}
	if got, err := b.Get(h.ctx, key, []string{p}); err != nil || !sameRating(got[0], rr.Changes[0].After) {
		t.Fatalf("Get through another client = %+v, %v", got, err)
	}
	if page, total, err := b.Ladder(h.ctx, key, 0, 10, ratingT0); err != nil || total != 2 || page[0].PlayerID != p {
		t.Fatalf("Ladder through another client = %+v, %d, %v", page, total, err)
	}
	if err := b.Forget(h.ctx, q); err != nil {
		t.Fatal(err)
	}
	h.wantLadder(key, 0, 10, ratingT0, 1, p)
}
