package webtest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"klondike/api/servertest"
	"klondike/match"
)

// TestRoomsAndRaceShowOnlyWhatApplies follows a host and a guest from the
// waiting room through the countdown into a race, and checks at each step
// what each of them can see: the guest never sees "Start the match"; during
// the countdown no Hint, Undo or Resign, and the countdown covers nothing;
// in a race no Hint (the server gives none) and, with undo off, no Undo;
// both scores labelled and explained; the waste fan legible and the help in
// reach at 1280×800; the HUD in two rows at most on a phone; the results'
// numbers and their headers right-aligned.
func TestRoomsAndRaceShowOnlyWhatApplies(t *testing.T) {
	t.Parallel()
	// The results of round 1 stay until the test is done with them: the
	// second round's countdown, after the intermission, replaces them.
	base := startServerConfig(t, servertest.Config{Match: match.Config{Intermission: time.Minute}})
	b := newBrowser(t)
	host := b.newPage("hana", base)
	guest := b.newPage("gus", base)
	for _, p := range []*page{host, guest} {
		p.viewport(desktopW, desktopH, 1)
	}

	host.enterName("/", "Hana")
	host.setValue("#set-seed", "1")
	host.setValue("#set-undo", "off")
	host.setValue("#set-max_players", "3")
	host.setValue("#set-rounds", "2") // the widest HUD: the round's number too
	host.setValue("#set-countdown_s", "3")
	host.setValue("#set-time_limit_s", "600")
	host.click("create", "#create-submit")
	host.waitText("the waiting room", "#room-title", "Match ")
	code := eval[string](host, "the code", `window.klondike.state.match.code`)

	guest.enterName("/m/"+code, "Gus")
	guest.waitText("the guest's room", "#room-title", code)
	host.waitFor("Gus in the room", `#players li[data-player="Gus"]`)
	guest.wantShown("the guest's room", map[string]bool{"#ready-toggle": true, "#leave": true, "#start-match": false})
	if note := guest.textOf("#room-title ~ .hint"); !strings.Contains(note, "Waiting for the host") {
		t.Errorf("the guest's note %q", note)
	}
	host.wantShown("the host's room", map[string]bool{"#ready-toggle": true, "#leave": true, "#start-match": true})

	// The countdown: no game controls, and the countdown over nothing.
	guest.click("ready", "#ready-toggle")
	host.waitFor("Gus ready", `#players li[data-player="Gus"] .ready.yes`)
	host.click("start", "#start-match")
	for _, p := range []*page{host, guest} {
		p.waitShown("the countdown", "#countdown")
		p.wantShown("the countdown", map[string]bool{"#hint": false, "#undo": false, "#resign": false, "#watch-title": true})
		if !p.onTop("#watch-title") {
			t.Errorf("%s: something covers the heading during the countdown", p.name)
		}
		if cd, hd := p.boxOf("#countdown"), p.boxOf("#watch-title"); cd.overlaps(hd) {
			t.Errorf("%s: the countdown %+v overlaps the heading %+v", p.name, cd, hd)
		}
	}

	// The race: Resign only (no hints in a race, undo off).
	for _, p := range []*page{host, guest} {
		p.waitFor("the board", card("T6", "AH"))
		p.waitShown("Resign", "#resign")
		p.wantShown("the race's HUD", map[string]bool{"#hint": false, "#undo": false, "#redo": false, "#countdown": false})
	}
	host.dblclick("AH up", card("T6", "AH"))
	host.waitFor("AH up", card("FH", "AH"))
	host.key("draw", "d")
	host.waitFor("the waste", wasteTop("4D"))
	host.key("draw", "d")
	host.waitJS("two draws", `window.klondike.state.round.view.moves === 3`)

	// Both scores, labelled, with the line that explains the timed one.
	host.waitFor("the leaderboard", `#leaderboard tr[data-player="Gus"]`)
	host.wantShown("the scores", map[string]bool{"#points": true, "#timed-score": true, "#score-note": true})
	if got := host.textOf("#points"); !strings.HasPrefix(got, "Points") {
		t.Errorf("the board's score reads %q, want it labelled Points", got)
	}
	if got := host.textOf("#timed-score"); !strings.HasPrefix(got, "Timed score") {
		t.Errorf("the timed score reads %q, want it labelled Timed score", got)
	}
	if hd := host.headers("#leaderboard"); !hasAll(hd, "Timed score", "Cards home") {
		t.Errorf("the leaderboard's headers %q", hd)
	}
	if note := host.textOf("#score-note"); !strings.Contains(note, "2 for every 10 s") || !strings.Contains(note, "points") {
		t.Errorf("the score's explanation %q", note)
	}

	// 1280×800: the waste fan legible, the help reachable without scrolling.
	if bad := host.fanLegible(); len(bad) > 0 {
		t.Errorf("covered corners in the waste fan: %q", bad)
	}
	host.waitShown("the help", "#keys-help summary")
	if help := host.boxOf("#keys-help summary"); help.bottom() > desktopH {
		t.Errorf("the keyboard and mouse help ends at y=%.0f, below the %d px screen", help.bottom(), desktopH)
	}

	// A phone: the HUD in two rows at most, nothing wider than the screen.
	guest.viewport(phoneW, phoneH, 2)
	guest.key("draw", "d")
	guest.waitJS("a draw", `window.klondike.state.round.view.moves === 1`)
	if rows := guest.rowsOf(".hud-stats, .hud-actions"); rows > 2 {
		t.Errorf("the phone's HUD takes %d rows, want 2 at most", rows)
	}
	if out := guest.outside(".hud", ".hud .stat, .hud .btn"); len(out) > 0 {
		t.Errorf("the phone's HUD spills over: %q", out)
	}
	if bad := guest.fanLegible(); len(bad) > 0 {
		t.Errorf("covered corners in the phone's waste fan: %q", bad)
	}
	if w := eval[int](guest, "page width", `document.documentElement.scrollWidth`); w > phoneW {
		t.Errorf("the page is %d px wide on a %d px phone", w, phoneW)
	}
	guest.wantShown("the phone's HUD", map[string]bool{"#points": true, "#timed-score": true, "#resign": true, "#hint": false})

	// The results: numbers and their headers right-aligned.
	for _, p := range []*page{host, guest} {
		p.resignIfPlaying()
	}
	for _, p := range []*page{host, guest} {
		p.waitText("the results", "#results-title", "Round 1 results")
		p.waitShown("the score's explanation", "#score-note")
		p.waitShown("the match totals", "#totals")
	}
	for _, css := range []string{"#leaderboard th.num", "#leaderboard td.num"} {
		for i, a := range host.alignOf(css) {
			if a != "right" {
				t.Errorf("%s #%d is aligned %s, want right", css, i+1, a)
			}
		}
	}
	if hd := host.headers("#leaderboard"); !hasAll(hd, "#", "Cards home", "Timed score", "Moves") {
		t.Errorf("the results' headers %q", hd)
	}
	if out := guest.outside("", "#leaderboard, #score-note, .deal-reveal, #totals"); len(out) > 0 {
		t.Errorf("the phone's results are wider than the screen: %q", out)
	}
}

// TestLinksWinOverWhatTheBrowserRemembers: a deal link and an invite link
// opened in a tab whose player has finished a match lead to the deal and
// to the match, not to the old results; the name screen says what waits;
// a link opened while the player sits in another match asks before
// leaving it.
func TestLinksWinOverWhatTheBrowserRemembers(t *testing.T) {
	t.Parallel()
	base := startServer(t)
	b := newBrowser(t)
	p := b.newPage("ida", base)
	host := b.newPage("jo", base)

	// The name screen says what the link offers.
	p.navigate("/deal/123456?draw=3")
	p.waitShown("the waiting link", "#waiting-link")
	if got := p.textOf("#waiting-link"); !strings.Contains(got, "Deal #123456, draw 3") {
		t.Errorf("the name screen says %q", got)
	}
	host.navigate("/m/K7QX2M")
	host.waitShown("the waiting invite", "#waiting-link")
	if got := host.textOf("#waiting-link"); !strings.Contains(got, "K7QX2M") {
		t.Errorf("the name screen says %q", got)
	}

	// Ida plays deal #1 solo to the end: a finished match.
	p.enterName("/deal/1?draw=3", "Ida")
	p.waitShown("the offer", "#offer-title")
	p.click("play it solo", "#deal-solo")
	p.waitFor("the board", card("T6", "AH"))
	p.resignIfPlaying()
	p.waitText("the results", "#results-title", "Round 1 results")

	// The deal link, in the same tab: the deal, not the old results.
	p.navigate("/deal/5?draw=1")
	p.waitShown("the offer of deal #5", "#offer-title")
	if got := p.textOf("#offer-title"); got != "Deal #5" {
		t.Errorf("the offer reads %q", got)
	}
	// The resumed match's snapshot has come and gone: still the offer.
	p.waitJS("the resumed match settled", `window.klondike.state.resumedId === ''`)
	p.wantShown("the deal link", map[string]bool{"#offer-title": true, "#results-title": false})
	if path := eval[string](p, "the path", `location.pathname + location.search`); path != "/deal/5?draw=1" {
		t.Errorf("the path is %q", path)
	}
	p.click("play it solo", "#deal-solo")
	p.waitJS("deal #5 dealt", `window.klondike.state.round && window.klondike.state.round.seed === '5' && !!window.klondike.state.round.view`)
	p.resignIfPlaying()
	p.waitText("the results", "#results-title", "Round 1 results")

	// An invite link, in the same tab: the match it names.
	host.enterName("/", "Jo")
	host.setValue("#set-max_players", "3")
	host.click("create", "#create-submit")
	host.waitText("the waiting room", "#room-title", "Match ")
	code := eval[string](host, "the code", `window.klondike.state.match.code`)
	p.navigate("/m/" + code)
	p.waitText("the invited match", "#room-title", code)
	p.wantShown("the invite link", map[string]bool{"#results-title": false, "#ready-toggle": true})
	host.waitFor("Ida in the room", `#players li[data-player="Ida"]`)

	// A deal link while seated in a match: asked first, then the deal.
	p.navigate("/deal/9?draw=3")
	p.waitShown("the choice", "#link-title")
	if got := p.textOf("#link-title"); got != "Deal #9, draw 3" {
		t.Errorf("the choice reads %q", got)
	}
	p.wantShown("the choice", map[string]bool{"#link-go": true, "#link-back": true})
	p.click("leave and go on", "#link-go")
	p.waitShown("the offer of deal #9", "#offer-title")
	host.waitJS("Ida gone from the room", `!document.querySelector('#players li[data-player="Ida"]')`)
}

// TestStandingsNameWhatTheyCount: the final standings of a match of two
// rounds call the server's count of rounds ranked first "1st places", not
// wins (a lone player who resigns ranks first), and right-align numbers
// and headers.
func TestStandingsNameWhatTheyCount(t *testing.T) {
	t.Parallel()
	base := startServer(t)
	b := newBrowser(t)
	p := b.newPage("kim", base)
	p.enterName("/", "Kim")
	p.setValue("#set-max_players", "1")
	p.setValue("#set-rounds", "2")
	p.setValue("#set-countdown_s", "0")
	p.click("create", "#create-submit")
	p.waitShown("Start", "#start-match")
	p.click("start", "#start-match")
	for round := 1; round <= 2; round++ {
		// The round is over once its results are in, or once the next
		// round has begun: the results of round 1 give way to round 2
		// after the server's short intermission, which a busy machine can
		// let pass before it looks.
		over := fmt.Sprintf(`(() => { const s = window.klondike.state, ro = s.roundOver, r = s.round;
			return (!!ro && ro.round >= %[1]d) || (!!r && r.number > %[1]d); })()`, round)
		p.waitJS(fmt.Sprintf("round %d dealt", round), fmt.Sprintf(`(() => { const r = window.klondike.state.round; return (!!r && r.number === %d && !!r.view) || %s; })()`, round, over))
		if !eval[bool](p, "over already", over) {
			p.waitShown("the hint in a solo round", "#hint")
			p.resignIfPlaying()
		}
		p.waitJS(fmt.Sprintf("round %d's results", round), over)
	}
	p.waitText("the final standings", "#totals caption", "Final standings")
	hd := p.headers("#totals")
	if !hasAll(hd, "1st places", "Total timed score", "Place each round") {
		t.Errorf("the standings' headers %q", hd)
	}
	for _, h := range hd {
		if strings.Contains(strings.ToLower(h), "win") {
			t.Errorf("the standings call %q a win", h)
		}
	}
	for _, css := range []string{"#totals th.num", "#totals td.num"} {
		a := p.alignOf(css)
		if len(a) == 0 {
			t.Errorf("no %s", css)
		}
		for i, x := range a {
			if x != "right" {
				t.Errorf("%s #%d is aligned %s, want right", css, i+1, x)
			}
		}
	}
	if got := p.textOf(`#totals tr[data-player="Kim"] .firsts`); got != "2" {
		t.Errorf("Kim's 1st places %q, want 2", got)
	}
	p.waitShown("the standings' explanation", "#totals-note")
}
