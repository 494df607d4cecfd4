package webtest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestRaceEndToEnd: two browser pages race deal #1 (draw 3) end to end:
// create, join by code, ready, start, real moves by double-click, click and
// place, drag and drop and the keyboard, an illegal drop that shows the
// server's reason, each page seeing the other's leaderboard, a reload that
// resumes mid-round, undo, resigning, the results with the revealed seed,
// and the replay viewer.
func TestRaceEndToEnd(t *testing.T) {
	t.Parallel()
	start := time.Now()
	base := startServer(t)
	b := newBrowser(t)
	alice := b.newPage("alice", base)
	bob := b.newPage("bob", base)

	// Alice creates a public match on deal #1.
	alice.enterName("/", "Alice")
	alice.waitFor("the lobby", "#play-title")
	alice.setValue("#set-seed", "1")
	alice.setValue("#set-draw", "3")
	alice.setValue("#set-max_players", "4")
	alice.setValue("#set-countdown_s", "2")
	alice.setValue("#set-time_limit_s", "600")
	alice.click("create", "#create-submit")
	alice.waitText("the waiting room", "#room-title", "Match ")
	code := eval[string](alice, "read the code", `window.klondike.state.match.code`)
	if len(code) != 6 {
		t.Fatalf("invite code %q", code)
	}
	link := eval[string](alice, "read the invite link", `document.getElementById('invite-link').value`)
	if !strings.HasSuffix(link, "/m/"+code) {
		t.Errorf("invite link %q", link)
	}

	// Bob sees it in the live list, then joins by code.
	bob.enterName("/", "Bob")
	bob.waitFor("the open match listed", fmt.Sprintf(`#open-matches li[data-code="%s"]`, code))
	bob.do("type the code",
		chromedp.SendKeys(chromedp.CSS("#join-code"), strings.ToLower(code)),
		chromedp.Click(chromedp.CSS("#join-go")))
	bob.waitText("the waiting room", "#room-title", code)
	alice.waitFor("Bob in the room", `#players li[data-player="Bob"]`)

	// Ready and start.
	bob.click("ready", "#ready-toggle")
	alice.waitFor("Bob ready", `#players li[data-player="Bob"] .ready.yes`)
	bob.waitJS("the ready toggle pressed", `document.getElementById('ready-toggle').getAttribute('aria-pressed') === 'true'`)
	alice.click("start", "#start-match")
	bob.waitText("the countdown", "#countdown", "Round 1 starts in")
	alice.waitFor("the board", card("T6", "AH"))
	bob.waitFor("the board", card("T6", "AH"))

	// Alice: double-click both aces up, draw, drag 4D onto 5C.
	alice.dblclick("double-click AH", card("T6", "AH"))
	alice.waitFor("AH on its foundation", card("FH", "AH"))
	alice.waitFor("QD turned up", card("T6", "QD"))
	alice.dblclick("double-click AS", card("T7", "AS"))
	alice.waitFor("AS on its foundation", card("FS", "AS"))
	alice.click("draw", `.board [data-slot="S"]`)
	alice.waitFor("4D on the waste", wasteTop("4D"))
	alice.drag("drag 4D onto 5C", wasteTop("4D"), card("T3", "5C"))
	alice.waitFor("4D on pile 3", card("T3", "4D"))
	// Undo is allowed for W-T3 (nothing turned); then the keyboard redoes it.
	alice.click("undo", "#undo")
	alice.waitFor("4D back on the waste", wasteTop("4D"))
	alice.key("W", "w")
	alice.key("3", "3")
	alice.waitFor("4D on pile 3 again", card("T3", "4D"))
	if got := eval[int](alice, "read the score", `window.klondike.state.round.view.score`); got != 35 {
		t.Errorf("alice's score %d, want 35 (two aces up with reveals, 4D to the tableau)", got)
	}

	// Bob: click to select, click to place.
	bob.click("select AH", card("T6", "AH"))
	bob.waitJS("AH selected", `document.querySelector('.board [data-slot="T6"]').getAttribute('aria-pressed') === 'true'`)
	bob.click("place on the foundation", `.board [data-slot="FH"]`)
	bob.waitFor("AH on its foundation", card("FH", "AH"))

	// An illegal drop: QH onto TS. The server's reason shows, QH snaps back.
	bob.drag("drag QH onto TS", card("T1", "QH"), card("T2", "TS"))
	bob.waitText("the reason", ".toast", "QH on TS: a card goes on a face-up card one rank higher of the opposite colour")
	bob.waitJS("QH back on pile 1", `!!document.querySelector('.board [data-slot="T1"] .card[data-card="QH"]') && !document.querySelector('.drag-ghost') && !document.querySelector('.board .lifted')`)
	if got := eval[int](bob, "read the moves", `window.klondike.state.round.view.moves`); got != 1 {
		t.Errorf("bob's moves after the refusal: %d, want 1", got)
	}

	// Bob by keyboard: D draws, 7 then F sends AS up.
	bob.key("D", "d")
	bob.waitFor("4D on the waste", wasteTop("4D"))
	bob.key("7", "7")
	bob.key("F", "f")
	bob.waitFor("AS on its foundation", card("FS", "AS"))

	// Each sees the other's progress on the live leaderboard.
	alice.waitFor("Bob's 2 cards on Alice's leaderboard", `#leaderboard tr[data-player="Bob"][data-foundation="2"]`)
	bob.waitFor("Alice's 2 cards on Bob's leaderboard", `#leaderboard tr[data-player="Alice"][data-foundation="2"]`)

	// Bob reloads mid-round and resumes where he was, with the right seq.
	bob.do("reload", chromedp.Reload())
	bob.waitFor("the board after reload", card("FS", "AS"))
	bob.waitFor("the waste after reload", wasteTop("4D"))
	bob.waitFor("AH still up", card("FH", "AH"))
	if got := eval[int](bob, "read last seq", `window.klondike.state.round.lastSeq`); got != 3 {
		t.Errorf("bob's last seq after resume: %d, want 3", got)
	}
	bob.key("W", "w")
	bob.key("3", "3")
	bob.waitFor("4D on pile 3 after resume", card("T3", "4D"))
	alice.waitFor("Bob's moves on Alice's leaderboard", `#leaderboard tr[data-player="Bob"][data-foundation="2"]`)
	alice.waitJS("Bob's 4 moves", `[...document.querySelectorAll('#leaderboard tr[data-player="Bob"] td')].some(td => td.textContent === '4')`)

	// Alice's connection drops: she reconnects by herself with her token
	// and goes on.
	// close() only starts the closing handshake: wait for the drop to be
	// seen before waiting for the reconnection, or "connected" is the old one.
	alice.dropConnection()
	alice.waitJS("reconnected", `window.klondike.state.connected && document.getElementById('conn-status').textContent === 'Connected'`)
	alice.key("D", "d")
	alice.waitFor("a draw after reconnecting", wasteTop("TD"))

	// Both resign: the round ends, the results reveal the seed.
	for _, p := range []*page{alice, bob} {
		p.click("resign", "#resign")
		p.click("confirm", "#confirm-yes")
	}
	for _, p := range []*page{alice, bob} {
		p.waitText("the results", "#results-title", "Round 1 results")
		p.waitText("the revealed seed", "#revealed-seed", "#1")
		p.waitFor("the known-deal check", `#commitment-check[data-state="known"]`)
	}
	href := eval[string](alice, "read the play-again link", `document.getElementById('play-again').getAttribute('href')`)
	if href != "/deal/1?draw=3" {
		t.Errorf("play again link %q", href)
	}

	// The replay viewer replays both players' moves from the layout.
	alice.click("open the replay", "#open-replay")
	alice.waitFor("the replay verdict", `#replay-verdict[data-state="ok"]`)
	alice.waitText("Alice's last move", "#replay-step", "Move 7 of 7: D")
	alice.click("first position", "#replay-first")
	alice.waitText("the start", "#replay-step", "Start")
	alice.waitFor("AH on pile 6 at the start", `.replay `+card("T6", "AH"))
	alice.click("next move", "#replay-next")
	alice.waitText("move 1", "#replay-step", "Move 1 of 7: T6-F")
	alice.setValue("#replay-player", eval[string](alice, "Bob's id",
		`window.klondike.state.roundOver.results.find(r => r.name === 'Bob').player_id`))
	alice.waitText("Bob's replay", "#replay-step", "Move 4 of 4: W-T3")
	alice.waitFor("Bob's replay verdict", `#replay-verdict[data-state="ok"]`)

	// Back to the lobby.
	alice.click("back to the lobby", "#to-lobby")
	alice.waitFor("the lobby", "#play-title")
	t.Logf("race end to end in %v", time.Since(start).Round(time.Millisecond))
}
