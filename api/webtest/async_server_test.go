package webtest

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"klondike/api/apitest"
	"klondike/api/protocol"
	"klondike/api/servertest"
	"klondike/api/web"
	"klondike/engine"
	"klondike/lobby/challenge"
	"klondike/lobby/memstore"
	"klondike/match"
)

// An asyncServer is the real server with the web client, as startServer
// runs it, whose daily rounds were made by the test before the server
// started: today's and yesterday's, each variant on deal #1 behind a
// commitment (a hidden deal), so that the browser plays known cards.
// Yesterday's rounds close a moment after the start, so that players can
// play them first and the page then finds them closed.
type asyncServer struct {
	base             string
	today, yesterday string // UTC days
	yesterdayCloses  time.Time
}

// dailyRules are the daily variants, by their variant name.
func dailyRules() map[string]engine.Rules {
	rs := map[string]engine.Rules{}
	for _, r := range challenge.DefaultDailyVariants() {
		rs[challenge.Variant(r)] = r
	}
	return rs
}

// startAsyncServer starts the server with its daily rounds made; yesterday's
// close after yesterdayOpen.
func startAsyncServer(t *testing.T, yesterdayOpen time.Duration) *asyncServer {
	t.Helper()
	mem := memstore.NewBackends()
	now := time.Now().UTC()
	s := &asyncServer{today: challenge.DayOf(now), yesterday: challenge.DayOf(now.AddDate(0, 0, -1)), yesterdayCloses: now.Add(yesterdayOpen)}
	midnight, err := time.Parse(time.DateOnly, s.today)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for variant, rules := range dailyRules() {
		for _, d := range []struct {
			day           string
			opens, closes time.Time
		}{{s.today, midnight, midnight.AddDate(0, 0, 1)}, {s.yesterday, midnight.AddDate(0, 0, -1), s.yesterdayCloses}} {
			fair, err := match.NewFairDealFor(1, rand.Reader)
			if err != nil {
				t.Fatal(err)
			}
			rec := challenge.Record{
				ID: challenge.DailyID(d.day, rules), Kind: challenge.KindDaily, Variant: variant, Rules: rules, Mode: match.ModeRace,
				Fair: fair, LimitMs: 15 * 60 * 1000, OpensAt: d.opens, ClosesAt: d.closes, Day: d.day,
			}
			if _, _, err := mem.Challenges.Create(ctx, rec, 72*time.Hour); err != nil {
				t.Fatal(err)
			}
		}
	}
	srv := servertest.New(servertest.Config{
		Store: mem.Store, Players: mem.Players, Coord: mem.Coord, Challenges: mem.Challenges, Records: mem.Challenges,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Match:  match.Config{LeaderboardEvery: 40 * time.Millisecond, Intermission: 300 * time.Millisecond, QuickWait: 500 * time.Millisecond},
	})
	mux := http.NewServeMux()
	mux.Handle("/", web.Handler())
	for _, p := range []string{"/ws", "/healthz", "/readyz", "/metrics", "/api/"} {
		mux.Handle(p, srv)
	}
	hs := httptest.NewServer(mux)
	t.Cleanup(func() {
		srv.Close()
		hs.Close()
	})
	s.base = hs.URL
	return s
}

// dailyID is the id of the daily round of a day and variant.
func (s *asyncServer) dailyID(day, variant string) string {
	return challenge.DailyID(day, dailyRules()[variant])
}

// playAttempt plays an attempt at the round as a player of that name over
// a WebSocket of its own: the moves, then resigns; it returns once the
// attempt is on the board.
func playAttempt(t *testing.T, base, name, roundID string, moves ...string) {
	t.Helper()
	c := apitest.Dial(t, base)
	defer c.Close()
	c.Hello(name)
	st := apitest.Request[protocol.RoundStarted](c, protocol.RoundRef{Type: protocol.TypeStartAttempt, RoundID: roundID})
	for i, m := range moves {
		if f := c.Move(st.RoundID, i+1, m); f.Type != protocol.TypeMoveOK {
			t.Fatalf("%s's move %s: %s", name, m, f)
		}
	}
	apitest.Request[protocol.Resigned](c, protocol.Resign{Type: protocol.TypeResign, RoundID: st.RoundID})
	apitest.Expect[protocol.AttemptOver](c)
}

// resignAttempt resigns the page's attempt and waits for its page.
func (p *page) resignAttempt() {
	p.t.Helper()
	p.click("resign", "#resign")
	p.click("confirm", "#confirm-yes")
	p.waitJS("the attempt over", `!window.klondike.state.attempt && !!window.klondike.state.attemptOver`)
}

// rendered tells whether the element matched by css is shown (shownJS)
// and rendered at all: the browser's checkVisibility also sees what a
// closed <details> hides, which keeps its layout.
func (p *page) rendered(css string) bool {
	p.t.Helper()
	return eval[bool](p, "is "+css+" rendered", fmt.Sprintf(`(() => { const e = document.querySelector(%s);
		return %s(e) && e.checkVisibility({ contentVisibilityAuto: true, opacityProperty: true, visibilityProperty: true }); })()`, jsString(css), shownJS))
}

// wantInside fails the test for every seen element matched by css that
// reaches beyond the viewport's left or right edge.
func (p *page) wantInside(where, css string) {
	p.t.Helper()
	if out := p.outside("", css); len(out) > 0 {
		p.t.Errorf("%s: %s: outside the viewport: %v", p.name, where, out)
	}
}
