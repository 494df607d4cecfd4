package webtest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"klondike/api/apitest"
	"klondike/api/protocol"
	"klondike/api/servertest"
	"klondike/lobby"
)

// listPage is how many open matches a page of list_matches holds when the
// client names no limit (docs/protocol.md, list_matches), as the web
// client asks.
const listPage = lobby.DefaultOpenPage

// startUncappedServer is startServer with no cap on the open matches or the
// new sessions of one address: every test player comes from loopback.
func startUncappedServer(t *testing.T) string {
	t.Helper()
	return startServerConfig(t, servertest.Config{
		MaxOpenMatchesPerIP:  -1,
		NewSessionsPerMinute: -1,
		// The matches' players hang up once they are made: their matches
		// must stay open for the whole test.
		AbandonedAfter: time.Hour,
	})
}

// openPublicMatches has n players, each on a connection of its own, open a
// public match, and returns the matches' codes in the order they were made.
// Each player hangs up once its match is made.
func openPublicMatches(t *testing.T, base string, first, n int) []string {
	t.Helper()
	codes := make([]string, 0, n)
	for i := first; i < first+n; i++ {
		c := apitest.Dial(t, base)
		c.Hello(fmt.Sprintf("Host %02d", i))
		m := apitest.Request[protocol.Match](c, protocol.CreateMatch{Type: protocol.TypeCreateMatch,
			Settings: protocol.PartialSettings{Public: new(true), MaxPlayers: new(2)}})
		if m.Match == nil || m.Match.Code == "" {
			t.Fatalf("create_match answered a match without a code: %+v", m.Match)
		}
		codes = append(codes, m.Match.Code)
		c.Close()
	}
	return codes
}

// listedJS is the codes the lobby lists, in order.
const listedJS = `[...document.querySelectorAll('#open-matches li.match-item')].map((e) => e.dataset.code)`

// TestPagingShowsEveryOpenMatch: with more open public matches than a page
// holds, the lobby lists the first page and a "Show more" button; the
// button appends the rest, once each and in order, and goes; the polls
// that follow keep every page shown and add a match made later at the end.
func TestPagingShowsEveryOpenMatch(t *testing.T) {
	t.Parallel()
	base := startUncappedServer(t)
	codes := openPublicMatches(t, base, 1, listPage+10)

	b := newBrowser(t)
	p := b.newPage("paula", base)
	p.enterName("/", "Paula")
	p.waitJS("the first page", fmt.Sprintf(`%s.length === %d`, listedJS, listPage))
	p.waitShown("Show more", "#more-matches")
	wantListed(t, p, codes[:listPage])

	p.click("show more", "#more-matches")
	p.waitJS("the second page", fmt.Sprintf(`%s.length === %d`, listedJS, len(codes)))
	wantListed(t, p, codes)
	p.waitJS("Show more gone", fmt.Sprintf(`!%s('#more-matches')`, shownJS))
	if got := eval[string](p, "the focus", `(document.activeElement.closest('li') || {dataset: {}}).dataset.code || ''`); got != codes[listPage] {
		t.Errorf("after the last page the focus is on %q, want the Join of its first match %q", got, codes[listPage])
	}

	// A poll reads both pages again; a match made since comes at the end.
	codes = append(codes, openPublicMatches(t, base, len(codes)+1, 1)...)
	p.waitJS("the new match", fmt.Sprintf(`%s.length === %d`, listedJS, len(codes)))
	wantListed(t, p, codes)
	if p.shown("#more-matches") {
		t.Errorf("Show more is shown with every match listed")
	}
	p.checkConsole()
}

// wantListed fails the test unless the lobby lists exactly want, in order.
func wantListed(t *testing.T, p *page, want []string) {
	t.Helper()
	got := eval[[]string](p, "the listed codes", listedJS)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("the lobby lists %d matches %v, want %d %v", len(got), got, len(want), want)
	}
}
