package webtest

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestScreenshots writes the screenshots of the README, each at 1280×800
// and at 390×844 (a phone, two device pixels a CSS pixel): the lobby, the
// waiting room of the host and of a guest, the board in a race, the results
// and the replay. It runs only when KLONDIKE_SCREENSHOTS names where to
// write them ("1" for docs/screenshots):
//
//	KLONDIKE_SCREENSHOTS=1 go test ./api/webtest -run TestScreenshots -count=1
//
// TestAsyncScreenshots (async_screenshots_test.go) writes those of the daily
// deals, a challenge and the records; -run Screenshots makes them all.
func TestScreenshots(t *testing.T) {
	t.Parallel()
	if os.Getenv("KLONDIKE_SCREENSHOTS") == "" {
		t.Skip("KLONDIKE_SCREENSHOTS is not set")
	}
	base := startServer(t)
	b := newBrowser(t)
	alice := b.newPage("alice", base)
	bob := b.newPage("bob", base)
	carol := b.newPage("carol", base)
	// both shoots the page at each size under name.png and name-phone.png.
	both := func(p *page, name string, before func()) {
		t.Helper()
		for _, size := range []struct {
			w, h   int64
			scale  float64
			suffix string
		}{{desktopW, desktopH, 1, ""}, {phoneW, phoneH, 2, "-phone"}} {
			p.viewport(size.w, size.h, size.scale)
			eval[bool](p, "scroll to the top", `(() => { window.scrollTo(0, 0); return true; })()`)
			if before != nil {
				before()
			}
			p.screenshot(name + size.suffix + ".png")
		}
		p.viewport(desktopW, desktopH, 1)
	}

	// A public match on deal #1 that Bob sees in the lobby's list.
	alice.enterName("/", "Alice")
	alice.setValue("#set-seed", "1")
	alice.setValue("#set-max_players", "4")
	alice.setValue("#set-rounds", "2")
	alice.setValue("#set-countdown_s", "1")
	alice.setValue("#set-time_limit_s", "600")
	alice.click("create", "#create-submit")
	alice.waitText("the waiting room", "#room-title", "Match ")
	code := eval[string](alice, "the code", `window.klondike.state.match.code`)
	carol.enterName("/", "Carol")
	carol.setValue("#join-code", code)
	carol.click("join", "#join-go")
	carol.waitText("Carol's room", "#room-title", code)
	bob.enterName("/", "Bob")
	bob.waitFor("the open match listed", fmt.Sprintf(`#open-matches li[data-code="%s"]`, code))
	both(bob, "lobby", nil)
	bob.click("join", fmt.Sprintf(`#open-matches li[data-code="%s"] button`, code))
	bob.waitText("Bob's room", "#room-title", code)
	carol.click("ready", "#ready-toggle")
	alice.waitFor("Carol ready", `#players li[data-player="Carol"] .ready.yes`)
	both(alice, "room-host", nil)
	both(bob, "room-guest", nil)

	// The race: a few moves each, seen on the leaderboard.
	bob.click("ready", "#ready-toggle")
	alice.waitFor("Bob ready", `#players li[data-player="Bob"] .ready.yes`)
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
	alice.waitFor("Bob's card on the leaderboard", `#leaderboard tr[data-player="Bob"][data-foundation="1"]`)
	both(alice, "board", func() {
		alice.waitFor("the leaderboard", `#leaderboard tr[data-player="Carol"]`)
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
		p.waitText("the results", "#results-title", "Round 2 results")
	}
	alice.waitText("the final standings", "#totals caption", "Final standings")
	both(alice, "results", nil)

	// The replay of Alice's second round, scrolled into view.
	alice.click("open the replay", "#open-replay")
	alice.waitFor("the replay verdict", `#replay-verdict[data-state="ok"]`)
	both(alice, "replay", func() {
		eval[bool](alice, "show the replay", `(() => { document.getElementById('replay').scrollIntoView({ block: 'start' }); return true; })()`)
	})
	var names []string
	for _, n := range []string{"lobby", "room-host", "room-guest", "board", "results", "replay"} {
		names = append(names, n+".png", n+"-phone.png")
	}
	t.Logf("wrote %s to %s", strings.Join(names, ", "), screenshotDir())
}
