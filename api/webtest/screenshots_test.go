package webtest

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// A shotLanguage is a language the README's screenshots are made in: its
// code (as ?lang= and localStorage's klondike.lang take it), the suffix of
// its files ("" for English: lobby.png; "-ar": lobby-ar.png and
// lobby-phone-ar.png), and the names of its players, as people reading it
// would be called.
type shotLanguage struct {
	code, suffix string
	// host, guest and third play the race; player takes the challenge and
	// plays the daily deals; ghosts played the daily deals before them.
	host, guest, third, player string
	ghosts                     [4]string
}

var (
	shotsEnglish = shotLanguage{code: "en", host: "Alice", guest: "Bob", third: "Carol", player: "Bob",
		ghosts: [4]string{"Zed", "Yan", "Yuri", "Yusuf"}}
	shotsArabic = shotLanguage{code: "ar", suffix: "-ar", host: "ليلى", guest: "باسم", third: "كريمة", player: "باسم",
		ghosts: [4]string{"زياد", "يارا", "يحيى", "يوسف"}}
)

// shotSizes are the sizes of every screenshot: 1280×800, and 390×844, a
// phone of two device pixels a CSS pixel.
var shotSizes = []struct {
	w, h   int64
	scale  float64
	suffix string
}{{desktopW, desktopH, 1, ""}, {phoneW, phoneH, 2, "-phone"}}

// shotPage opens a page that shows the client in the language: the
// choice is stored on the page's origin (opened at /healthz, no client)
// before the client is first loaded, as a player's earlier choice would.
func (b *browser) shotPage(name, base string, lang shotLanguage) *page {
	b.t.Helper()
	p := b.newPage(name, base)
	p.navigate("/healthz")
	eval[bool](p, "choose "+lang.code, fmt.Sprintf(`(() => { localStorage.setItem('klondike.lang', %s); return true; })()`, jsString(lang.code)))
	return p
}

// shootBoth saves the page at each of shotSizes, scrolled to the top, as
// <name>.png and <name>-phone.png (with the language's suffix before
// .png), running before first when it is not nil; the page is left at
// 1280×800.
func shootBoth(p *page, lang shotLanguage, name string, before func()) {
	p.t.Helper()
	if got := eval[string](p, "the page's language", `document.documentElement.lang`); got != lang.code {
		p.t.Fatalf("%s: the page is in %q, want %q for %s%s.png", p.name, got, lang.code, name, lang.suffix)
	}
	for _, size := range shotSizes {
		p.viewport(size.w, size.h, size.scale)
		eval[bool](p, "scroll to the top", `(() => { window.scrollTo(0, 0); return true; })()`)
		if before != nil {
			before()
		}
		p.screenshot(name + size.suffix + lang.suffix + ".png")
	}
	p.viewport(desktopW, desktopH, 1)
}

// TestScreenshots writes the screenshots of the README, each at 1280×800
// and at 390×844 (a phone, two device pixels a CSS pixel): the lobby, the
// waiting room of the host and of a guest, the board in a race, the results
// and the replay, in English (lobby.png, lobby-phone.png, …) and in Arabic
// (lobby-ar.png, lobby-phone-ar.png, …). It runs only when
// KLONDIKE_SCREENSHOTS names where to write them ("1" for docs/screenshots):
//
//	KLONDIKE_SCREENSHOTS=1 go test ./api/webtest -run TestScreenshots -count=1
//
// TestAsyncScreenshots (async_screenshots_test.go) writes those of the daily
// deals, a challenge and the records, and TestAsyncScreenshotsInArabic
// their Arabic ones; -run Screenshots makes them all.
func TestScreenshots(t *testing.T) {
	t.Parallel()
	if os.Getenv("KLONDIKE_SCREENSHOTS") == "" {
		t.Skip("KLONDIKE_SCREENSHOTS is not set")
	}
	for _, lang := range []shotLanguage{shotsEnglish, shotsArabic} {
		t.Run(lang.code, func(t *testing.T) {
			t.Parallel()
			raceScreenshots(t, lang)
		})
	}
}

// raceScreenshots writes TestScreenshots' screens in the language. Its
// waits look at the page's state and elements, not at words, which are
// the language's.
func raceScreenshots(t *testing.T, lang shotLanguage) {
	base := startServer(t)
	b := newBrowser(t)
	alice := b.shotPage("alice", base, lang)
	bob := b.shotPage("bob", base, lang)
	carol := b.shotPage("carol", base, lang)
	player := func(name string) string { return fmt.Sprintf(`#players li[data-player=%s]`, jsString(name)) }

	// A public match on deal #1 that Bob sees in the lobby's list.
	alice.enterName("/", lang.host)
	alice.setValue("#set-seed", "1")
	alice.setValue("#set-max_players", "4")
	alice.setValue("#set-rounds", "2")
	alice.setValue("#set-countdown_s", "1")
	alice.setValue("#set-time_limit_s", "600")
	alice.click("create", "#create-submit")
	alice.waitShown("the waiting room", "#room-title")
	code := eval[string](alice, "the code", `window.klondike.state.match.code`)
	carol.enterName("/", lang.third)
	carol.setValue("#join-code", code)
	carol.click("join", "#join-go")
	carol.waitText("Carol's room", "#room-title", code)
	bob.enterName("/", lang.guest)
	bob.waitFor("the open match listed", fmt.Sprintf(`#open-matches li[data-code="%s"]`, code))
	shootBoth(bob, lang, "lobby", nil)
	bob.click("join", fmt.Sprintf(`#open-matches li[data-code="%s"] button`, code))
	bob.waitText("Bob's room", "#room-title", code)
	carol.click("ready", "#ready-toggle")
	alice.waitFor("Carol ready", player(lang.third)+" .ready.yes")
	shootBoth(alice, lang, "room-host", nil)
	shootBoth(bob, lang, "room-guest", nil)

	// The race: a few moves each, seen on the leaderboard.
	bob.click("ready", "#ready-toggle")
	alice.waitFor("Bob ready", player(lang.guest)+" .ready.yes")
	alice.click("start", "#start-match")
	for _, p := range []*page{alice, bob, carol} {
		p.waitFor("the board", card("T6", "AH"))
	}
	alice.dblclick("AH up", card("T6", "AH"))
	alice.waitFor("AH up", card("FH", "AH"))
	alice.dblclick("AS up", card("T7", "AS"))
	alice.waitFor("AS up", card("FS", "AS"))
	alice.key("draw", "d")
	alice.waitFor("4D on the waste", wasteTop("4D"))
	alice.drag("4D onto 5C", wasteTop("4D"), card("T3", "5C"))
	alice.waitFor("4D on pile 3", card("T3", "4D"))
	alice.key("draw", "d")
	alice.waitJS("drawn", `window.klondike.state.round.view.moves === 5`)
	bob.dblclick("AH up", card("T6", "AH"))
	bob.waitFor("AH up", card("FH", "AH"))
	bob.key("draw", "d")
	bob.waitJS("drawn", `window.klondike.state.round.view.moves === 2`)
	carol.key("draw", "d")
	carol.waitJS("drawn", `window.klondike.state.round.view.moves === 1`)
	alice.waitFor("Bob's card on the leaderboard", fmt.Sprintf(`#leaderboard tr[data-player=%s][data-foundation="1"]`, jsString(lang.guest)))
	shootBoth(alice, lang, "board", func() {
		alice.waitFor("the leaderboard", fmt.Sprintf(`#leaderboard tr[data-player=%s]`, jsString(lang.third)))
	})

	// Two rounds, then the results with the final standings. Round 1's
	// results show only for the short intermission, which a loaded machine
	// may pass before a check sees them: the test waits for round 2 instead.
	for round := 1; round <= 2; round++ {
		for _, p := range []*page{alice, bob, carol} {
			p.waitJS(fmt.Sprintf("round %d dealt", round), fmt.Sprintf(`(() => { const r = window.klondike.state.round; return !!r && r.number === %d && !!r.view; })()`, round))
			if round == 2 && p == alice {
				p.playSome(12)
			}
			p.resignIfPlaying()
		}
	}
	for _, p := range []*page{alice, bob, carol} {
		p.waitJS("round 2's results", `(() => { const ro = window.klondike.state.roundOver; return !!ro && ro.round === 2; })()`)
		p.waitShown("the results", "#results-title")
	}
	alice.waitJS("the final standings", `window.klondike.state.match.state === 'over'`)
	alice.waitShown("the final standings", "#totals")
	shootBoth(alice, lang, "results", nil)

	// The replay of Alice's second round, scrolled into view.
	alice.click("open the replay", "#open-replay")
	alice.waitFor("the replay verdict", `#replay-verdict[data-state="ok"]`)
	shootBoth(alice, lang, "replay", func() {
		eval[bool](alice, "show the replay", `(() => { document.getElementById('replay').scrollIntoView({ block: 'start' }); return true; })()`)
	})
	var names []string
	for _, n := range []string{"lobby", "room-host", "room-guest", "board", "results", "replay"} {
		names = append(names, n+lang.suffix+".png", n+"-phone"+lang.suffix+".png")
	}
	t.Logf("wrote %s to %s", strings.Join(names, ", "), screenshotDir())
}

// TestAsyncScreenshotsInArabic writes the screenshots of the daily deals,
// a challenge and the records in Arabic (daily-ar.png, daily-phone-ar.png,
// challenge-ar.png, …), the screens TestAsyncScreenshots makes in English,
// when KLONDIKE_SCREENSHOTS names where to write them:
//
//	KLONDIKE_SCREENSHOTS=1 go test ./api/webtest -run Screenshots -count=1
func TestAsyncScreenshotsInArabic(t *testing.T) {
	t.Parallel()
	if os.Getenv("KLONDIKE_SCREENSHOTS") == "" {
		t.Skip("KLONDIKE_SCREENSHOTS is not set")
	}
	lang := shotsArabic
	b := newBrowser(t)
	srv := startAsyncServer(t, 3*time.Second)
	playAttempt(t, srv.base, lang.ghosts[0], srv.dailyID(srv.today, "draw3"), "T6-F", "T7-F", "D", "W-T3")
	playAttempt(t, srv.base, lang.ghosts[1], srv.dailyID(srv.yesterday, "draw3"), "T6-F")
	playAttempt(t, srv.base, lang.ghosts[2], srv.dailyID(srv.yesterday, "draw3"), "D")
	playAttempt(t, srv.base, lang.ghosts[3], srv.dailyID(srv.yesterday, "draw1"), "T6-F", "T7-F")
	alice := b.shotPage("alice", srv.base, lang)
	bob := b.shotPage("bob", srv.base, lang)
	me := func(table string) string {
		return fmt.Sprintf(`%s tr.me[data-player=%s]`, table, jsString(lang.player))
	}

	// Alice's challenge on deal #1, made from the lobby and played by her
	// (two aces up, then she resigns), then by Bob: Bob's page.
	alice.enterName("/", lang.host)
	alice.click("challenge a friend", "#challenge-open")
	alice.waitShown("the challenge form", "#challenge-panel")
	alice.setValue("#ch-seed", "1")
	alice.setValue("#ch-window", "3600")
	alice.click("make the challenge", "#challenge-submit")
	alice.waitShown("the board", card("T6", "AH"))
	id := eval[string](alice, "the challenge's id", `window.klondike.state.attempt.asyncId`)
	alice.dblclick("AH up", card("T6", "AH"))
	alice.waitShown("AH up", card("FH", "AH"))
	alice.dblclick("AS up", card("T7", "AS"))
	alice.waitShown("AS up", card("FS", "AS"))
	alice.resignAttempt()
	alice.waitShown("the creator's page", "#challenge-title")

	bob.enterName("/c/"+id, lang.player)
	bob.click("play", "#challenge-play")
	bob.waitShown("the board", card("T6", "AH"))
	bob.dblclick("AH up", card("T6", "AH"))
	bob.waitShown("AH up", card("FH", "AH"))
	bob.resignAttempt()
	bob.waitShown("the board with both", me("#challenge-board-table"))
	shootBoth(bob, lang, "challenge", nil)

	// Bob's daily draw 3 and draw 1, then the daily page with yesterday's
	// results.
	time.Sleep(time.Until(srv.yesterdayCloses.Add(100 * time.Millisecond)))
	bob.click("the daily deals", "#challenge-daily")
	bob.click("play draw 3", "#daily-draw3-play")
	bob.waitShown("the board", card("T6", "AH"))
	bob.dblclick("AH up", card("T6", "AH"))
	bob.waitShown("AH up", card("FH", "AH"))
	bob.resignAttempt()
	bob.waitShown("Bob on the board", me("#board-draw3-table"))
	bob.click("play draw 1", "#daily-draw1-play")
	bob.waitShown("the board", card("T6", "AH"))
	bob.resignAttempt()
	bob.waitShown("Bob on the draw 1 board", me("#board-draw1-table"))
	bob.waitFor("yesterday checked", `#reveal-draw3-check[data-state="ok"]`)
	shootBoth(bob, lang, "daily", nil)

	bob.click("my records", "#daily-records")
	bob.waitShown("the records", `.record[data-variant="draw3"]`)
	shootBoth(bob, lang, "records", nil)
	t.Logf("wrote daily, challenge and records (-ar.png and -phone-ar.png) to %s", screenshotDir())
}
