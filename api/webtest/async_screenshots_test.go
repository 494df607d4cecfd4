package webtest

import (
	"os"
	"testing"
	"time"
)

// TestAsyncScreenshots writes the screenshots of the daily deals, a
// challenge and the records, each at 1280×800 and at 390×844 (daily.png,
// daily-phone.png, challenge.png, …), when KLONDIKE_SCREENSHOTS names where
// to write them, as TestScreenshots does:
//
//	KLONDIKE_SCREENSHOTS=1 go test ./api/webtest -run Screenshots -count=1
func TestAsyncScreenshots(t *testing.T) {
	t.Parallel()
	if os.Getenv("KLONDIKE_SCREENSHOTS") == "" {
		t.Skip("KLONDIKE_SCREENSHOTS is not set")
	}
	b := newBrowser(t)
	srv := startAsyncServer(t, 3*time.Second)
	playAttempt(t, srv.base, "Zed", srv.dailyID(srv.today, "draw3"), "T6-F", "T7-F", "D", "W-T3")
	playAttempt(t, srv.base, "Yan", srv.dailyID(srv.yesterday, "draw3"), "T6-F")
	playAttempt(t, srv.base, "Yuri", srv.dailyID(srv.yesterday, "draw3"), "D")
	playAttempt(t, srv.base, "Yusuf", srv.dailyID(srv.yesterday, "draw1"), "T6-F", "T7-F")
	alice := b.newPage("alice", srv.base)
	bob := b.newPage("bob", srv.base)
	both := func(p *page, name string) {
		t.Helper()
		for _, size := range []struct {
			w, h   int64
			scale  float64
			suffix string
		}{{desktopW, desktopH, 1, ""}, {phoneW, phoneH, 2, "-phone"}} {
			p.viewport(size.w, size.h, size.scale)
			eval[bool](p, "scroll to the top", `(() => { window.scrollTo(0, 0); return true; })()`)
			p.screenshot(name + size.suffix + ".png")
		}
		p.viewport(desktopW, desktopH, 1)
	}

	// Alice's challenge, played by her and then by Bob: Bob's page.
	for _, p := range []*page{alice, bob} {
		p.viewport(desktopW, desktopH, 1)
	}
	id := challengeFromLobby(t, alice)
	bob.enterName("/c/"+id, "Bob")
	bob.click("play", "#challenge-play")
	bob.waitShown("the board", card("T6", "AH"))
	bob.dblclick("AH up", card("T6", "AH"))
	bob.waitShown("AH up", card("FH", "AH"))
	bob.resignAttempt()
	bob.waitShown("the board with both", `#challenge-board-table tr.me[data-player="Bob"]`)
	both(bob, "challenge")

	// Bob's daily draw 3, then the daily page with yesterday's results.
	time.Sleep(time.Until(srv.yesterdayCloses.Add(100 * time.Millisecond)))
	bob.click("the daily deals", "#challenge-daily")
	bob.click("play draw 3", "#daily-draw3-play")
	bob.waitShown("the board", card("T6", "AH"))
	bob.dblclick("AH up", card("T6", "AH"))
	bob.waitShown("AH up", card("FH", "AH"))
	bob.resignAttempt()
	bob.waitShown("Bob on the board", `#board-draw3-table tr.me[data-player="Bob"]`)
	bob.click("play draw 1", "#daily-draw1-play")
	bob.waitShown("the board", card("T6", "AH"))
	bob.resignAttempt()
	bob.waitShown("Bob on the draw 1 board", `#board-draw1-table tr.me[data-player="Bob"]`)
	bob.waitFor("yesterday checked", `#reveal-draw3-check[data-state="ok"]`)
	both(bob, "daily")

	bob.click("my records", "#daily-records")
	bob.waitShown("the records", `.record[data-variant="draw3"]`)
	both(bob, "records")
	t.Logf("wrote daily, challenge and records (.png and -phone.png) to %s", screenshotDir())
}
