package webtest

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// challengeFromLobby has Alice make a challenge on deal #1 from the lobby, open
// for an hour, and play it first (two aces up, then resigns); it returns
// the challenge's id.
func challengeFromLobby(t *testing.T, alice *page) string {
	t.Helper()
	alice.enterName("/", "Alice")
	alice.waitShown("the lobby's challenge button", "#challenge-open")
	alice.wantShown("the lobby", map[string]bool{"#challenge-panel": false, "#lobby-daily": true, "#lobby-records": true})
	alice.click("challenge a friend", "#challenge-open")
	alice.waitShown("the challenge form", "#challenge-panel")
	alice.setValue("#ch-seed", "1")
	alice.setValue("#ch-window", "3600")
	alice.click("make the challenge", "#challenge-submit")

	// The creator plays first, at once, with the link to share beside the board.
	alice.waitShown("the board", card("T6", "AH"))
	alice.waitShown("the link to share", "#challenge-link")
	id := eval[string](alice, "the challenge's id", `window.klondike.state.attempt.asyncId`)
	if link := eval[string](alice, "the link", `document.getElementById('challenge-link').value`); !strings.HasSuffix(link, "/c/"+id) {
		t.Errorf("the link to share %q, want …/c/%s", link, id)
	}
	alice.wantShown("the creator's attempt", map[string]bool{"#resign": true, "#hint": false, "#ghosts": false, "#challenge-copy": true})
	alice.dblclick("AH up", card("T6", "AH"))
	alice.waitShown("AH up", card("FH", "AH"))
	alice.dblclick("AS up", card("T7", "AS"))
	alice.waitShown("AS up", card("FS", "AS"))
	alice.resignAttempt()
	alice.waitText("the creator's page", "#challenge-title", "Your challenge")
	return id
}

// TestAsyncChallenge: Alice challenges a friend from the lobby on deal #1
// (an open deal) and plays first; Bob opens the link in another browser
// context, sees who challenged him and the rules, plays with Alice's ghost
// beside him, and after his attempt the board lists both with their ranks.
// Alice closes the challenge: the final board, the open deal's check and
// the replays. Bob's records count his game.
func TestAsyncChallenge(t *testing.T) {
	t.Parallel()
	srv := startAsyncServer(t, time.Hour)
	b := newBrowser(t)
	alice := b.newPage("alice", srv.base)
	bob := b.newPage("bob", srv.base)
	for _, p := range []*page{alice, bob} {
		p.viewport(desktopW, desktopH, 1)
	}
	id := challengeFromLobby(t, alice)
	alice.waitText("Alice's result", "#challenge-played", "Played — rank 1")
	alice.waitShown("Alice on the board", `#challenge-board-table tr.me[data-player="Alice"]`)
	alice.waitText("the open deal marked", "#challenge-board-open", "Open deal #1 — anyone can look this deal up")
	alice.wantShown("the creator's page", map[string]bool{"#challenge-close": true, "#challenge-link": true, "#challenge-play": false})

	// Bob follows the link.
	bob.navigate("/c/" + id)
	bob.waitText("the link's offer on the name screen", "#waiting-link", "A challenge from a friend")
	bob.enterName("/c/"+id, "Bob")
	bob.waitText("who challenges him", "#challenge-title", "Alice challenges you")
	if rules := bob.textOf("#challenge-rules"); !strings.Contains(rules, "Draw 3") || !strings.Contains(rules, "to play") {
		t.Errorf("the rules read %q", rules)
	}
	bob.waitText("the players so far", "#challenge-players", "1 player")
	bob.wantShown("the guest's page", map[string]bool{
		"#challenge-play": true, "#challenge-left": true, "#challenge-close": false, "#challenge-link": false,
		`#challenge-board-table tr[data-player="Alice"]`: true,
	})
	bob.wantInside("the challenge page at 1280×800", ".challenge section, .challenge table, .challenge button, .challenge dl")

	// Bob plays, with Alice (his friend, and the leader) as his ghost.
	bob.click("play", "#challenge-play")
	bob.waitShown("the board", card("T6", "AH"))
	bob.waitShown("the ghost panel", "#ghosts")
	// The server reads the board's leader again only every few seconds: a
	// read made while Alice was still playing (no leader yet) can make the
	// first panels show her as the friend alone.
	bob.waitText("Alice as friend and leader", "#ghosts", "Friend and leader (Alice): timed score")
	bob.wantShown("the guest's attempt", map[string]bool{"#challenge-link": false, "#resign": true, "#hint": false})
	bob.dblclick("AH up", card("T6", "AH"))
	bob.waitShown("AH up", card("FH", "AH"))

	// A reload mid-attempt: the page offers to resume, and the game goes
	// on where it stood, on the same clock.
	bob.do("reload", chromedp.Reload())
	bob.waitShown("Resume", "#challenge-resume")
	bob.wantShown("the attempt under way", map[string]bool{"#challenge-play": false})
	bob.click("resume", "#challenge-resume")
	bob.waitShown("AH still up", card("FH", "AH"))
	if seq := eval[int](bob, "the last seq", `window.klondike.state.round.lastSeq`); seq != 1 {
		t.Errorf("Bob's last seq after resuming: %d, want 1", seq)
	}
	bob.key("draw", "d")
	bob.waitJS("a move after resuming", `window.klondike.state.round.view.moves === 2`)
	bob.resignAttempt()

	// After his attempt: his rank, and the board with both.
	bob.waitText("Bob's result", "#challenge-played", "Played — rank 2")
	bob.waitShown("Bob on the board", `#challenge-board-table tr.me[data-player="Bob"][data-rank="2"]`)
	bob.wantShown("the board with both", map[string]bool{`#challenge-board-table tr[data-player="Alice"][data-rank="1"]`: true, "#challenge-play": false, "#challenge-resume": false})
	alice.waitShown("Bob on Alice's board (read again)", `#challenge-board-table tr[data-player="Bob"][data-rank="2"]`)

	// Alice closes it: the final board, the open deal's check, the replays.
	alice.click("close now", "#challenge-close")
	alice.click("confirm", "#confirm-yes")
	alice.waitFor("the deal's check", `#challenge-reveal-check[data-state="known"]`)
	alice.wantShown("the closed challenge", map[string]bool{"#challenge-close": false, "#challenge-link": false, "#challenge-reveal-replay": true})
	alice.waitText("the final board", "#challenge-board-table caption", "Final board")
	alice.click("the replays", "#challenge-reveal-replay")
	alice.waitFor("the replay verdict", `#replay-verdict[data-state="ok"]`)
	alice.waitText("Alice's replay", "#replay-step", "Move 2 of 2: T7-F")

	// Bob's records count his game.
	bob.click("my records", "#challenge-records")
	bob.waitShown("the records", `.record[data-variant="draw3"]`)
	if got := bob.textOf(`.record[data-variant="draw3"] .fig-played dd`); got != "1" {
		t.Errorf("Bob's draw 3 games played: %q, want 1", got)
	}
	if got := bob.textOf(`.record[data-variant="draw3"] .fig-pct dd`); got != "0%" {
		t.Errorf("Bob's draw 3 win rate: %q, want 0%%", got)
	}
	bob.click("back", "#records-back")
	bob.waitText("back on the challenge", "#challenge-title", "Alice challenges you")

	// At a phone's size, nothing leaves the screen.
	for _, p := range []*page{alice, bob} {
		p.viewport(phoneW, phoneH, 2)
		p.wantInside("the challenge page on a phone", ".challenge section, .challenge table, .challenge button, .challenge dl, .challenge input")
	}
}

// TestAsyncChallengeAfterPractice: after solo practice, "Challenge a friend"
// makes a challenge of the same rules on a new deal, and its creator plays
// it at once.
func TestAsyncChallengeAfterPractice(t *testing.T) {
	t.Parallel()
	srv := startAsyncServer(t, time.Hour)
	b := newBrowser(t)
	cleo := b.newPage("cleo", srv.base)
	cleo.enterName("/deal/1?draw=1", "Cleo")
	cleo.click("play it solo", "#deal-solo")
	cleo.waitShown("the board", card("T6", "AH"))
	cleo.resignIfPlaying()
	cleo.waitShown("the challenge offered", "#challenge-after")
	cleo.click("challenge a friend", "#challenge-after")
	// A new random deal may be stuck from its first card: the attempt then
	// ends as it starts, and the challenge's page shows.
	cleo.waitJS("the attempt or its page", `!!window.klondike.state.attempt || !!document.getElementById('challenge-title')`)
	if eval[bool](cleo, "playing?", `!!window.klondike.state.attempt`) {
		cleo.waitShown("the link to share", "#challenge-link")
		if draw := eval[int](cleo, "the draw", `window.klondike.state.round.rules.draw`); draw != 1 {
			t.Errorf("the challenge's draw %d, want 1 as in the practice", draw)
		}
		cleo.resignAttempt()
	}
	cleo.waitText("the challenge's page", "#challenge-title", "Your challenge")
	if path := eval[string](cleo, "the path", `location.pathname`); !strings.HasPrefix(path, "/c/") {
		t.Errorf("the path %q, want /c/<id>", path)
	}
}
