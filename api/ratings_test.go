package api_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"klondike/api"
	"klondike/api/apitest"
	"klondike/api/protocol"
	"klondike/api/servertest"
	"klondike/engine"
	"klondike/lobby"
	"klondike/lobby/memstore"
	"klondike/lobby/rating"
	"klondike/match"
)

// The ratings over the wire: a rated quick match played to its end, the
// changes it pushes, the rated round's record, the players' profiles and
// the ladders. Every HTTP answer is checked against api/openapi.json too.

// ratedServer runs the real server wiring with a memory ratings store
// that the test can seed.
func ratedServer(t *testing.T) (string, *memstore.Ratings, *apiChecker) {
	t.Helper()
	rs := memstore.NewRatings()
	srv := servertest.New(servertest.Config{
		Logger:               slog.New(slog.NewTextHandler(io.Discard, nil)),
		Limits:               api.Limits{MsgRate: 10000, MsgBurst: 10000},
		NewSessionsPerMinute: -1,
		Ratings:              rs,
		Match:                match.Config{Winnable: dealOne{}},
	})
	hs := httptest.NewServer(srv)
	t.Cleanup(func() {
		srv.Close()
		hs.Close()
	})
	return hs.URL, rs, newChecker(t, loadDoc(t))
}

// dealOne deals deal 1 whenever a winnable deal is asked for: a rated
// match takes no seed, and a random deal can be stuck from the start,
// which would end its round before anyone moved.
type dealOne struct{}

func (dealOne) Take(engine.Rules) (uint64, bool) { return 1, true }

// quickSettings are a quick match of two that starts at once, deals
// dealOne's deal and whose round ends within the shortest time limit.
func quickSettings(rated *bool) protocol.PartialSettings {
	return protocol.PartialSettings{
		MaxPlayers: new(2), TimeLimitS: new(2), CountdownS: new(0), Deals: new("winnable"), Rated: rated,
	}
}

// quickRound has alice and bob take a quick match of settings and play
// its round: both move, bob resigns and alice's time runs out, so that
// she is first and he is last. It returns the match and the round's id.
func quickRound(t *testing.T, c *apiChecker, base string, settings protocol.PartialSettings) (a, b *apitest.Client, m *protocol.MatchInfo, roundID string) {
	t.Helper()
	a, b = apitest.Dial(t, base), apitest.Dial(t, base)
	a.Hello("alice")
	b.Hello("bob")
	m = apitest.Request[protocol.Match](a, protocol.CreateMatch{Type: protocol.TypeQuickMatch, Settings: settings}).Match
	// The lobby list shows the waiting match, checked against the
	// document: its settings, and its player's rating when it is rated.
	c.get(base + "/api/v1/matches")
	if got := apitest.Request[protocol.Match](b, protocol.CreateMatch{Type: protocol.TypeQuickMatch, Settings: settings}).Match; got.ID != m.ID {
		t.Fatalf("bob's quick match is %s, alice's %s", got.ID, m.ID)
	}
	roundID = apitest.Expect[protocol.RoundStarted](a).RoundID
	apitest.Expect[protocol.RoundStarted](b)
	moveOK(t, a, roundID, 1, "D")
	moveOK(t, b, roundID, 1, "D")
	apitest.Request[protocol.Resigned](b, protocol.Resign{Type: protocol.TypeResign, RoundID: roundID})
	if over := apitest.Expect[protocol.RoundOver](a); over.RoundID != roundID {
		t.Fatalf("round_over of %s, want %s", over.RoundID, roundID)
	}
	return a, b, m, roundID
}

// ratingsPush waits for the match push that carries the round's ratings.
func ratingsPush(t *testing.T, p *apitest.Client, roundID string) *protocol.MatchInfo {
	t.Helper()
	for {
		m := apitest.Decode[protocol.Match](t, p.Next(protocol.TypeMatch)).Match
		if m.Ratings != nil && m.Ratings.RoundID == roundID {
			return m
		}
	}
}

// changeOf returns a player's change in a round's ratings.
func changeOf(t *testing.T, rr *protocol.RoundRatings, id string) protocol.RatingChange {
	t.Helper()
	i := slices.IndexFunc(rr.Changes, func(c protocol.RatingChange) bool { return c.PlayerID == id })
	if i < 0 {
		t.Fatalf("no change of %s in %+v", id, rr)
	}
	return rr.Changes[i]
}

// TestRatedQuickMatch: two new players' rated quick match, played to its
// end: the match push carries both changes, winner up and loser down by
// as much; the record recomputes to the same ratings; the profiles show
// them with one history point; the ladder stays empty while both are
// provisional; the metrics count the round.
func TestRatedQuickMatch(t *testing.T) {
	base, _, c := ratedServer(t)
	a, b, m, roundID := quickRound(t, c, base, quickSettings(nil))
	if !m.Settings.Rated || len(m.Players) != 1 || m.Players[0].Rating != 1500 || !m.Players[0].Provisional {
		t.Fatalf("alice's quick match: settings %+v, players %+v; want rated, her at 1500 provisional", m.Settings, m.Players)
	}

	got := ratingsPush(t, a, roundID)
	ratingsPush(t, b, roundID)
	rr := got.Ratings
	if rr.Unrated != "" || len(rr.Changes) != 2 {
		t.Fatalf("the round's ratings: %+v, want two changes", rr)
	}
	ca, cb := changeOf(t, rr, a.PlayerID), changeOf(t, rr, b.PlayerID)
	if ca.Place != 1 || cb.Place != 2 || ca.Name != "alice" || cb.Name != "bob" {
		t.Errorf("places: alice %+v, bob %+v; want 1 and 2", ca, cb)
	}
	if ca.Before != 1500 || cb.Before != 1500 || ca.Change <= 0 || cb.Change >= 0 ||
		ca.Change != ca.After-ca.Before || cb.Change != cb.After-cb.Before || abs(ca.Change+cb.Change) > 1 {
		t.Errorf("changes: alice %+v, bob %+v; want +x and -x from 1500", ca, cb)
	}
	if !ca.Provisional || !cb.Provisional {
		t.Errorf("after one round, alice %+v and bob %+v should still be provisional", ca, cb)
	}
	for _, p := range got.Players {
		if ch := changeOf(t, rr, p.PlayerID); p.Rating != ch.After || p.Provisional != ch.Provisional {
			t.Errorf("the match shows %+v, rated %+v", p, ch)
		}
	}

	// The record: the ratings before and after in full, which recompute.
	rec := sendAs[api.RatedRoundReply](c, http.MethodGet, base+"/api/v1/rounds/"+roundID+"/ratings", "", nil, http.StatusOK)
	if rec.RoundID != roundID || rec.MatchID != m.ID || rec.Game != "klondike" || rec.Draw != 3 ||
		len(rec.Changes) != 2 || len(rec.Apart) != 0 || time.Since(rec.At) > time.Minute {
		t.Fatalf("the rated round's record: %+v", rec)
	}
	round := make([]rating.Placing, len(rec.Changes))
	for i, ch := range rec.Changes {
		round[i] = rating.Placing{Rating: ch.Before, Place: ch.Place}
		if shown := changeOf(t, rr, ch.PlayerID); ch.Before.Display() != shown.Before || ch.After.Display() != shown.After || ch.Place != shown.Place {
			t.Errorf("the record's %+v, the push's %+v", ch, shown)
		}
	}
	for i, after := range rating.Update(round, rec.At) {
		want := rec.Changes[i].After
		if math.Abs(after.Rating-want.Rating) > 1e-9 || math.Abs(after.Deviation-want.Deviation) > 1e-9 ||
			math.Abs(after.Volatility-want.Volatility) > 1e-9 || after.Rounds != want.Rounds || !after.At.Equal(want.At) {
			t.Errorf("recomputed %s: %+v, the record has %+v", rec.Changes[i].PlayerID, after, want)
		}
	}

	// The profiles: one rating each, with one point of history.
	for _, p := range []*apitest.Client{a, b} {
		pr := sendAs[api.Profile](c, http.MethodGet, base+"/api/v1/players/"+p.PlayerID, "", nil, http.StatusOK)
		ch := changeOf(t, rr, p.PlayerID)
		if len(pr.Ratings) != 1 {
			t.Fatalf("%s's ratings: %+v", p.PlayerID, pr.Ratings)
		}
		r := pr.Ratings[0]
		if r.Game != "klondike" || r.Draw != 3 || r.Rating != ch.After || !r.Provisional || r.Rounds != 1 || r.Place != 0 ||
			r.Deviation <= 110 || len(r.History) != 1 || r.History[0].RoundID != roundID {
			t.Errorf("%s's rating: %+v, rated %+v", p.PlayerID, r, ch)
		}
	}
	exp := sendAs[api.Export](c, http.MethodGet, base+"/api/v1/me/export", a.Token, nil, http.StatusOK)
	if len(exp.Ratings) != 1 || exp.Ratings[0].Rating != ca.After {
		t.Errorf("alice's export's ratings: %+v", exp.Ratings)
	}

	// Neither is established: the ladder is empty.
	lad := sendAs[api.LadderReply](c, http.MethodGet, base+"/api/v1/ladder/klondike/3?around="+a.PlayerID, "", nil, http.StatusOK)
	if lad.Game != "klondike" || lad.Draw != 3 || lad.Players != 0 || len(lad.Entries) != 0 || lad.NextFrom != 0 || lad.Place != 0 || lad.Around != nil {
		t.Errorf("the ladder of two provisional players: %+v", lad)
	}

	_, body := c.get(base + "/metrics")
	for _, want := range []string{
		`klondike_rated_rounds_total{result="rated"} 1`,
		`klondike_rated_rounds_total{result="unrated"} 0`,
		"klondike_quick_wait_seconds_count 1",
		"klondike_quick_rating_spread_count 1",
		"klondike_quick_rating_spread_sum 0",
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}

	// Bob deletes himself: the record names him no more.
	sendAs[struct{}](c, http.MethodDelete, base+"/api/v1/me", b.Token, nil, http.StatusNoContent)
	rec = sendAs[api.RatedRoundReply](c, http.MethodGet, base+"/api/v1/rounds/"+roundID+"/ratings", "", nil, http.StatusOK)
	for _, ch := range rec.Changes {
		if want := map[string]string{a.PlayerID: "alice", b.PlayerID: lobby.DeletedName}[ch.PlayerID]; ch.Name != want {
			t.Errorf("after bob's deletion the record names %s %q, want %q", ch.PlayerID, ch.Name, want)
		}
	}
}

// TestCasualQuickMatch: a quick match that asks not to be rated is not,
// and its round changes no rating.
func TestCasualQuickMatch(t *testing.T) {
	base, rs, c := ratedServer(t)
	a, b, m, roundID := quickRound(t, c, base, quickSettings(new(false)))
	if m.Settings.Rated || m.Players[0].Rating != 0 || m.Players[0].Provisional {
		t.Fatalf("a casual quick match: settings %+v, players %+v", m.Settings, m.Players)
	}
	// The rating of a round comes after round_over; the rated one's comes
	// well within this.
	time.Sleep(300 * time.Millisecond)
	for _, f := range a.Frames() {
		if f.Type == protocol.TypeMatch && apitest.Decode[protocol.Match](t, f).Match.Ratings != nil {
			t.Errorf("a casual match's push carries ratings: %s", f)
		}
	}
	wantError(c, http.MethodGet, base+"/api/v1/rounds/"+roundID+"/ratings", "", nil, http.StatusNotFound, protocol.CodeNotFound)
	for _, p := range []*apitest.Client{a, b} {
		if pr := sendAs[api.Profile](c, http.MethodGet, base+"/api/v1/players/"+p.PlayerID, "", nil, http.StatusOK); len(pr.Ratings) != 0 {
			t.Errorf("%s's ratings after a casual round: %+v", p.PlayerID, pr.Ratings)
		}
	}
	if of, err := rs.Of(context.Background(), a.PlayerID); err != nil || len(of) != 0 {
		t.Errorf("the store's ratings of alice: %v, %v", of, err)
	}
	_, body := c.get(base + "/metrics")
	if !strings.Contains(string(body), `klondike_rated_rounds_total{result="rated"} 0`) {
		t.Errorf("/metrics counts a casual round as rated")
	}
}

// TestRatedSettings: create_match is rated only when it asks, never with
// a seed.
func TestRatedSettings(t *testing.T) {
	base, _, _ := ratedServer(t)
	a := apitest.Dial(t, base)
	a.Hello("alice")
	f := a.Reply(protocol.CreateMatch{Type: protocol.TypeCreateMatch, Settings: protocol.PartialSettings{Rated: new(true), Seed: new("5")}})
	if e := apitest.Decode[protocol.Error](t, f); f.Type != protocol.TypeError || e.Code != protocol.CodeBadRequest || !strings.Contains(e.Message, "rated with a seed") {
		t.Fatalf("create_match rated with a seed: %s", f)
	}
	if m := apitest.Request[protocol.Match](a, protocol.CreateMatch{Type: protocol.TypeCreateMatch}).Match; m.Settings.Rated {
		t.Errorf("create_match without rated: %+v", m.Settings)
	}
	m := apitest.Request[protocol.Match](a, protocol.CreateMatch{Type: protocol.TypeCreateMatch, Settings: protocol.PartialSettings{Rated: new(true)}}).Match
	if !m.Settings.Rated || m.Players[0].Rating != 1500 || !m.Players[0].Provisional {
		t.Errorf("create_match rated: settings %+v, players %+v", m.Settings, m.Players)
	}
}

// seedPlayer is a player of a seeded ladder.
type seedPlayer struct {
	id, name string
	rating   float64
	at       time.Time // the last rated round's end
}

// seedLadder records one rated round of established players under key.
func seedLadder(t *testing.T, rs lobby.Ratings, key, roundID string, ps []seedPlayer) {
	t.Helper()
	rr := lobby.RatedRound{RoundID: roundID, MatchID: "00000000000000ff", Key: key, At: time.Now()}
	for i, p := range ps {
		rr.Changes = append(rr.Changes, lobby.RatedPlayer{
			PlayerID: p.id, Name: p.name, Place: i + 1, Before: rating.New(),
			After: rating.Rating{Rating: p.rating, Deviation: 60, Volatility: rating.InitialVol, Rounds: 20, At: p.at},
		})
	}
	if _, applied, err := rs.Apply(context.Background(), rr); err != nil || !applied {
		t.Fatalf("seeding %s: applied %v, %v", key, applied, err)
	}
}

// TestLadder: a ladder seeded with established players, a page at a
// time, around a player, and its refusals.
func TestLadder(t *testing.T) {
	base, rs, c := ratedServer(t)
	now := time.Now()
	// 25 players from 2000 down by 10, but the 6th and 7th tie, and one
	// away so long that their rating is provisional again.
	var ps []seedPlayer
	for i := range 25 {
		r := 2000 - 10*float64(i)
		if i == 6 {
			r = ps[5].rating
		}
		ps = append(ps, seedPlayer{id: fmt.Sprintf("%016x", 0x100-i), name: fmt.Sprintf("p%02d", i), rating: r, at: now})
	}
	ps = append(ps, seedPlayer{id: "00000000000000aa", name: "away", rating: 2500, at: now.AddDate(-1, 0, 0)})
	// A player deleted since: on the ladder under lobby.DeletedName.
	d := apitest.Dial(t, base)
	d.Hello("dora")
	sendAs[struct{}](c, http.MethodDelete, base+"/api/v1/me", d.Token, nil, http.StatusNoContent)
	ps = append(ps, seedPlayer{id: d.PlayerID, name: "dora", rating: 1000, at: now})
	seedLadder(t, rs, "klondike/3", "00000000000000f1", ps)
	// The order wanted: by rating, ties by id, the one away left out.
	want := slices.Clone(ps[:25])
	want = append(want, seedPlayer{id: d.PlayerID, name: lobby.DeletedName, rating: 1000})
	slices.SortStableFunc(want, func(x, y seedPlayer) int {
		if x.rating != y.rating {
			return int(y.rating - x.rating)
		}
		return strings.Compare(x.id, y.id)
	})

	ladder := func(query string) api.LadderReply {
		t.Helper()
		return sendAs[api.LadderReply](c, http.MethodGet, base+"/api/v1/ladder/klondike/3"+query, "", nil, http.StatusOK)
	}
	check := func(what string, es []api.LadderEntry, from int) {
		t.Helper()
		for i, e := range es {
			w := want[from+i]
			if e.Place != from+i+1 || e.PlayerID != w.id || e.Name != w.name || e.Rating != int(w.rating) || e.Deviation != 60 || e.Rounds != 20 {
				t.Errorf("%s[%d] = %+v, want place %d %+v", what, i, e, from+i+1, w)
			}
		}
	}

	// Pages of 10: 26 players in three pages.
	var seen int
	for from, pages := 0, 0; ; pages++ {
		if pages == 3 {
			t.Fatal("3 pages of 10 do not end a ladder of 26")
		}
		page := ladder(fmt.Sprintf("?from=%d&limit=10", from))
		if page.Players != 26 || page.Place != 0 || page.Around != nil {
			t.Fatalf("page from %d: %+v", from, page)
		}
		check(fmt.Sprintf("from=%d", from), page.Entries, from)
		seen += len(page.Entries)
		if page.NextFrom == 0 {
			break
		}
		if page.NextFrom != from+10 {
			t.Fatalf("page from %d: next_from %d", from, page.NextFrom)
		}
		from = page.NextFrom
	}
	if seen != 26 {
		t.Errorf("the pages showed %d entries, want 26", seen)
	}
	all := ladder("")
	if len(all.Entries) != 26 || all.NextFrom != 0 {
		t.Errorf("the default page: %d entries, next_from %d", len(all.Entries), all.NextFrom)
	}
	check("all", all.Entries, 0)
	if big := ladder("?limit=1000"); len(big.Entries) != 26 {
		t.Errorf("limit=1000: %d entries", len(big.Entries))
	}
	if past := ladder("?from=1000000000"); len(past.Entries) != 0 || past.Players != 26 || past.NextFrom != 0 {
		t.Errorf("from=1000000000: %+v", past)
	}

	// Around: a player in the middle, at the top, at the bottom, off it.
	for _, tc := range []struct {
		id          string
		place, from int
		n           int
	}{
		{want[12].id, 13, 7, 11},
		{want[0].id, 1, 0, 6},
		{want[25].id, 26, 20, 6},
	} {
		page := ladder("?limit=3&around=" + tc.id)
		if page.Place != tc.place || len(page.Around) != tc.n || len(page.Entries) != 3 || page.NextFrom != 3 {
			t.Errorf("around %s: place %d, %d around, %d entries; want place %d, %d around", tc.id, page.Place, len(page.Around), len(page.Entries), tc.place, tc.n)
			continue
		}
		check("around "+tc.id, page.Around, tc.from)
	}
	for _, id := range []string{"00000000000000aa", "0123456789abcdef"} {
		if page := ladder("?around=" + id); page.Place != 0 || page.Around != nil {
			t.Errorf("around %s, who is not on the ladder: place %d, around %+v", id, page.Place, page.Around)
		}
	}

	// A profile shows each rating, by game then draw, with its place.
	ladderOfOne := apitest.Dial(t, base)
	ladderOfOne.Hello("erin")
	seedLadder(t, rs, "thumb_and_pouch/1", "00000000000000f2", []seedPlayer{{id: ladderOfOne.PlayerID, name: "erin", rating: 1700, at: now}})
	seedLadder(t, rs, "klondike/1", "00000000000000f3", []seedPlayer{{id: ladderOfOne.PlayerID, name: "erin", rating: 1650, at: now}})
	prof := sendAs[api.Profile](c, http.MethodGet, base+"/api/v1/players/"+ladderOfOne.PlayerID, "", nil, http.StatusOK)
	if len(prof.Ratings) != 2 || prof.Ratings[0].Game != "klondike" || prof.Ratings[0].Draw != 1 || prof.Ratings[0].Rating != 1650 ||
		prof.Ratings[1].Game != "thumb_and_pouch" || prof.Ratings[1].Place != 1 || prof.Ratings[1].Provisional || prof.Ratings[1].Deviation != 60 {
		t.Errorf("erin's ratings: %+v", prof.Ratings)
	}

	// Other games and draws have ladders of their own.
	if tp := sendAs[api.LadderReply](c, http.MethodGet, base+"/api/v1/ladder/thumb_and_pouch/1", "", nil, http.StatusOK); tp.Players != 1 || tp.Game != "thumb_and_pouch" || tp.Draw != 1 {
		t.Errorf("the thumb_and_pouch/1 ladder: %+v", tp)
	}
	if dk := sendAs[api.LadderReply](c, http.MethodGet, base+"/api/v1/ladder/double_klondike/3", "", nil, http.StatusOK); dk.Players != 0 || dk.Entries == nil {
		t.Errorf("the empty double_klondike/3 ladder: %+v", dk)
	}

	// Refusals.
	for _, tc := range []struct {
		path   string
		status int
	}{
		{"/klondike/2", http.StatusBadRequest},
		{"/klondike/three", http.StatusBadRequest},
		{"/whitehead/3", http.StatusBadRequest},
		{"/klondike/3?from=-1", http.StatusBadRequest},
		{"/klondike/3?from=x", http.StatusBadRequest},
		{"/klondike/3?from=1000000001", http.StatusBadRequest},
		{"/klondike/3?limit=0", http.StatusBadRequest},
		{"/klondike/3?limit=-5", http.StatusBadRequest},
		{"/klondike/3?limit=ten", http.StatusBadRequest},
		{"/spider/3", http.StatusNotFound},
		{"/Klondike/3", http.StatusNotFound},
	} {
		code := map[int]string{http.StatusBadRequest: protocol.CodeBadRequest, http.StatusNotFound: protocol.CodeNotFound}[tc.status]
		wantError(c, http.MethodGet, base+"/api/v1/ladder"+tc.path, "", nil, tc.status, code)
	}
	wantError(c, http.MethodGet, base+"/api/v1/rounds/0123456789abcdef/ratings", "", nil, http.StatusNotFound, protocol.CodeNotFound)
}

// TestNoRatings: a lobby that keeps no ratings has no ladders, no rated
// rounds and profiles without ratings, and its quick matches are casual.
func TestNoRatings(t *testing.T) {
	srv := servertest.New(servertest.Config{
		Logger:    slog.New(slog.NewTextHandler(io.Discard, nil)),
		NoRatings: true,
		Limits:    api.Limits{MsgRate: 10000, MsgBurst: 10000},
	})
	hs := httptest.NewServer(srv)
	t.Cleanup(func() {
		srv.Close()
		hs.Close()
	})
	base, c := hs.URL, newChecker(t, loadDoc(t))
	e := wantError(c, http.MethodGet, base+"/api/v1/ladder/klondike/3", "", nil, http.StatusNotFound, protocol.CodeNotFound)
	if !strings.Contains(e.Message, "no ratings") {
		t.Errorf("the ladder of a server without ratings: %+v", e)
	}
	wantError(c, http.MethodGet, base+"/api/v1/rounds/0123456789abcdef/ratings", "", nil, http.StatusNotFound, protocol.CodeNotFound)
	a := apitest.Dial(t, base)
	a.Hello("alice")
	if pr := sendAs[api.Profile](c, http.MethodGet, base+"/api/v1/players/"+a.PlayerID, "", nil, http.StatusOK); pr.Ratings == nil || len(pr.Ratings) != 0 {
		t.Errorf("a profile without ratings: %+v", pr.Ratings)
	}
	if m := apitest.Request[protocol.Match](a, protocol.CreateMatch{Type: protocol.TypeQuickMatch}).Match; m.Settings.Rated {
		t.Errorf("a quick match of a server without ratings is rated: %+v", m.Settings)
	}
}

// faultRatings are ratings whose reads fail with err while it is set, as
// a store that is down or broken.
type faultRatings struct {
	lobby.Ratings
	mu  sync.Mutex
	err error
}

func (r *faultRatings) set(err error) {
	r.mu.Lock()
	r.err = err
	r.mu.Unlock()
}

func (r *faultRatings) fault() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

func (r *faultRatings) Round(ctx context.Context, roundID string) (lobby.RatedRound, error) {
	if err := r.fault(); err != nil {
		return lobby.RatedRound{}, err
	}
	return r.Ratings.Round(ctx, roundID)
}

func (r *faultRatings) Ladder(ctx context.Context, key string, from, limit int, now time.Time) ([]lobby.LadderEntry, int, error) {
	if err := r.fault(); err != nil {
		return nil, 0, err
	}
	return r.Ratings.Ladder(ctx, key, from, limit, now)
}

func (r *faultRatings) Of(ctx context.Context, id string) (map[string]rating.Rating, error) {
	if err := r.fault(); err != nil {
		return nil, err
	}
	return r.Ratings.Of(ctx, id)
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
