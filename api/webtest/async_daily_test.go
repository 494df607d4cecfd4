package webtest

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestAsyncDaily: /daily shows today's two rounds, each with its time left,
// players, a shortened commitment that opens whole, a Play button and its
// live board. Playing the draw 3 round shows the board of cards and the
// ghost of the board's leader; once resigned the page says "Played — rank
// 2" and its board lists both players, the player's row and its
// neighbour's marked. Yesterday's rounds, closed, show their final boards,
// the commitment verified in the browser, and their replays.
func TestAsyncDaily(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	srv := startAsyncServer(t, 4*time.Second)
	today3 := srv.dailyID(srv.today, "draw3")
	// Zed has played today's draw 3 (two aces up): the leader. Yan and
	// Yuri played yesterday's before it closed.
	playAttempt(t, srv.base, "Zed", today3, "T6-F", "T7-F")
	playAttempt(t, srv.base, "Yan", srv.dailyID(srv.yesterday, "draw3"), "T6-F")
	playAttempt(t, srv.base, "Yuri", srv.dailyID(srv.yesterday, "draw3"), "D")

	dana := b.newPage("dana", srv.base)
	dana.viewport(desktopW, desktopH, 1)
	dana.navigate("/daily")
	dana.waitText("the link's offer on the name screen", "#waiting-link", "daily deals")
	dana.enterName("/daily", "Dana")

	// Today's two rounds, each with Play.
	for _, v := range []string{"draw3", "draw1"} {
		dana.waitShown(v+"'s Play", "#daily-"+v+"-play")
		sel := fmt.Sprintf(`.daily-round[data-variant="%s"]`, v)
		if got := dana.textOf(sel + " .facts"); !strings.Contains(got, "Closes in") {
			t.Errorf("%s: the round's facts read %q", v, got)
		}
		if !dana.rendered("#commit-"+v+" summary") || dana.rendered("#commit-"+v+" .commit-full") {
			t.Errorf("%s: the commitment is not shown shortened", v)
		}
	}
	dana.waitText("Zed counted", `.daily-round[data-variant="draw3"] .players-count`, "1 player")
	if n := eval[int](dana, "rounds shown", fmt.Sprintf(`[...document.querySelectorAll('.daily-round')].filter(%s).length`, shownJS)); n != 2 {
		t.Errorf("%d daily rounds shown, want 2", n)
	}
	dana.waitShown("Zed on the draw 3 board", `#board-draw3-table tr[data-player="Zed"]`)
	// The commitment opens whole.
	dana.click("open the commitment", "#commit-draw3 summary")
	dana.waitJS("the whole commitment", `document.querySelector('#commit-draw3 .commit-full').checkVisibility()`)
	if c := dana.textOf("#commit-draw3 .commit-full"); len(c) != 64 {
		t.Errorf("the whole commitment %q", c)
	}
	dana.wantInside("the daily page at 1280×800", ".daily section, .daily table, .daily button")

	// Playing: the board, the clock, Resign, no Hint, and the leader's ghost.
	dana.click("play draw 3", "#daily-draw3-play")
	dana.waitShown("the board", card("T6", "AH"))
	dana.wantShown("the attempt", map[string]bool{"#resign": true, "#hint": false, "#clock": true, "#countdown": false})
	dana.waitShown("the ghost panel", "#ghosts")
	if g := dana.textOf("#ghosts"); !strings.Contains(g, "Leader (Zed): timed score") || !strings.Contains(g, "cards home") {
		t.Errorf("the ghost panel reads %q", g)
	}
	if path := eval[string](dana, "the path", `location.pathname`); path != "/daily" {
		t.Errorf("the path while playing %q", path)
	}
	dana.dblclick("AH up", card("T6", "AH"))
	dana.waitShown("AH on its foundation", card("FH", "AH"))
	// The connection drops: the client reconnects and resumes the attempt.
	dana.dropConnection()
	dana.waitJS("reconnected", `window.klondike.state.connected`)
	dana.key("draw", "d")
	dana.waitJS("a move after reconnecting", `window.klondike.state.round.view.moves === 2`)
	dana.resignAttempt()

	// The result, and the board with both.
	dana.waitText("the result", "#daily-draw3-played", "Played — rank 2")
	dana.waitShown("Dana on the board", `#board-draw3-table tr.me[data-player="Dana"]`)
	dana.wantShown("the board", map[string]bool{`#board-draw3-table tr.near[data-player="Zed"]`: true, "#daily-draw1-play": true, "#daily-draw3-play": false})
	if r := eval[string](dana, "Dana's rank", `document.querySelector('#board-draw3-table tr.me').dataset.rank`); r != "2" {
		t.Errorf("Dana's rank on the board %q", r)
	}

	// Yesterday's rounds, once closed: the final boards, the commitment
	// checked, the replays.
	time.Sleep(time.Until(srv.yesterdayCloses.Add(100 * time.Millisecond)))
	dana.navigate("/daily")
	dana.waitShown("yesterday's results", "#yesterday")
	y3 := "#board-" + srv.dailyID(srv.yesterday, "draw3")
	dana.waitShown("Yan on yesterday's board", y3+`-table tr[data-player="Yan"]`)
	dana.waitShown("Yuri on yesterday's board", y3+`-table tr[data-player="Yuri"]`)
	dana.waitText("the final board", y3+"-table caption", "Final board")
	for _, v := range []string{"draw3", "draw1"} {
		dana.waitFor(v+"'s commitment checked", "#reveal-"+v+`-check[data-state="ok"]`)
		if got := dana.textOf("#reveal-" + v + "-check"); !strings.Contains(got, "Commitment verified ✓") {
			t.Errorf("yesterday's %s check reads %q", v, got)
		}
	}
	dana.waitText("nobody on yesterday's draw 1", "#board-"+srv.dailyID(srv.yesterday, "draw1"), "Nobody has played yet")
	dana.click("yesterday's replays", "#reveal-draw3-replay")
	dana.waitFor("the replay verdict", `#replay-verdict[data-state="ok"]`)
	dana.waitText("Yan's replay", "#replay-step", "Move 1 of 1: T6-F")

	// At a phone's size, nothing leaves the screen.
	dana.viewport(phoneW, phoneH, 2)
	dana.wantInside("the daily page on a phone", ".daily section, .daily table, .daily button, .daily .commit")
	dana.wantShown("the phone's board", map[string]bool{"#board-draw3-table .col-moves": false, `#board-draw3-table tr.me`: true})
}
