package webtest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"klondike/api"
	"klondike/api/web"
)

// finishRound resigns the page's game if it is still being played.
func (p *page) resignIfPlaying() {
	p.t.Helper()
	playing := eval[bool](p, "is the game on", `!!(window.klondike.state.round && window.klondike.state.round.view && window.klondike.state.round.view.status === 'playing' && !window.klondike.state.roundOver)`)
	if !playing {
		return
	}
	p.click("resign", "#resign")
	p.click("confirm", "#confirm-yes")
}

// waitBoardOrResults waits for the page's board, or for the results when
// a random deal was stuck from its first card (the round then ends at once).
func (p *page) waitBoardOrResults() bool {
	p.t.Helper()
	p.waitJS("the board or the results", `!!document.querySelector('.board [data-slot="S"]') || !!document.querySelector('#results-title')`)
	return eval[bool](p, "board?", `!!document.querySelector('.board [data-slot="S"]')`)
}

// dropConnection closes the page's WebSocket as a network drop would, and
// waits until the client has seen it. A watcher started with the close
// notes the moment: the client reconnects by itself a fraction of a second
// later, which a wait begun afterwards could miss on a busy machine.
func (p *page) dropConnection() {
	p.t.Helper()
	eval[bool](p, "drop the connection", `(() => {
		window.dropSeen = false;
		const watch = setInterval(() => {
			if (!window.klondike.state.connected) { window.dropSeen = true; clearInterval(watch); }
		}, 5);
		window.klondike.state.conn.ws.close();
		return true;
	})()`)
	p.waitJS("the drop seen", `window.dropSeen`)
}

// drawOnce draws a card if the game allows it and waits for the server's answer.
func (p *page) drawOnce() {
	p.t.Helper()
	if !p.waitBoardOrResults() {
		return
	}
	ok := eval[bool](p, "can draw", `(() => { const v = window.klondike.state.round.view; return v.status === 'playing' && v.stock > 0; })()`)
	if !ok {
		return
	}
	p.key("D", "d")
	p.waitJS("the draw answered", `(() => { const s = window.klondike.state; return !!s.roundOver || s.round.view.moves >= 1 || s.round.view.status !== 'playing'; })()`)
}

// TestCommitmentInviteLinkAndSpectator: a match on a random deal, joined by
// its invite link, started by itself once full and all ready, watched by a
// spectator who sees the leaderboard and never a board; the results check
// the commitment with SubtleCrypto and it passes.
func TestCommitmentInviteLinkAndSpectator(t *testing.T) {
	t.Parallel()
	base := startServer(t)
	b := newBrowser(t)
	alice := b.newPage("alice", base)
	bob := b.newPage("bob", base)
	carol := b.newPage("carol", base)

	alice.enterName("/", "Alice")
	alice.setValue("#set-max_players", "2")
	alice.setValue("#set-countdown_s", "1")
	alice.setValue("#set-rounds", "1")
	eval[bool](alice, "make it private", `(() => { document.getElementById('set-public').checked = false; return true; })()`)
	alice.click("create", "#create-submit")
	alice.waitText("the waiting room", "#room-title", "Match ")
	code := eval[string](alice, "read the code", `window.klondike.state.match.code`)
	if pub := eval[bool](alice, "public?", `window.klondike.state.match.settings.public`); pub {
		t.Errorf("the match is public")
	}

	// Bob follows the invite link.
	bob.enterName("/m/"+code, "Bob")
	bob.waitText("the waiting room by link", "#room-title", code)
	alice.waitFor("Bob in the room", `#players li[data-player="Bob"]`)

	// Carol watches by code.
	carol.enterName("/", "Carol")
	carol.setValue("#join-code", code)
	carol.click("watch", "#watch-go")
	carol.waitJS("watching", `window.klondike.state.spectating !== ''`)

	// Full and all ready: it starts by itself.
	alice.click("ready", "#ready-toggle")
	bob.click("ready", "#ready-toggle")
	alice.drawOnce()
	bob.drawOnce()
	alice.playSome(20)
	bob.playSome(10)

	carol.waitFor("the leaderboard", `#leaderboard tr[data-player="Alice"]`)
	carol.waitFor("Bob on the leaderboard", `#leaderboard tr[data-player="Bob"]`)
	if eval[bool](carol, "no board", `!!document.querySelector('.board')`) {
		t.Errorf("a spectator sees a board")
	}

	alice.resignIfPlaying()
	bob.resignIfPlaying()
	for _, p := range []*page{alice, bob, carol} {
		p.waitFor("the results", "#results-title")
		p.waitFor("a passing commitment check", `#commitment-check[data-state="ok"]`)
		seed := eval[string](p, "the revealed seed", `document.getElementById('revealed-seed').textContent`)
		if !strings.HasPrefix(seed, "#") || len(seed) < 2 {
			t.Errorf("%s: revealed seed %q", p.name, seed)
		}
	}
	// The check compares with the commitment published before the round.
	alice.waitJS("the commitment seen at round_starting", `(() => { const s = window.klondike.state; return s.round.commitment.length === 64 && s.round.commitment === s.roundOver.deal.commitment; })()`)
	alice.click("open the replay", "#open-replay")
	alice.waitFor("the replay verdict", `#replay-verdict[data-state="ok"]`)
}

// TestDealLinkAndSoloPractice: /deal/1?draw=3 offers the deal; playing it
// solo starts a one-player match at once on deal #1.
func TestDealLinkAndSoloPractice(t *testing.T) {
	t.Parallel()
	base := startServer(t)
	b := newBrowser(t)
	dana := b.newPage("dana", base)
	dana.enterName("/deal/1?draw=3", "Dana")
	dana.waitText("the offer", "#offer-title", "Deal #1")
	dana.click("play it solo", "#deal-solo")
	dana.waitFor("deal #1 on the board", card("T6", "AH"))
	dana.waitText("the deal's number", "#deal-label", "#1")
	if n := eval[int](dana, "players", `window.klondike.state.match.players.length`); n != 1 {
		t.Errorf("%d players in solo practice", n)
	}
	// Undo is on in practice: a draw can be taken back.
	dana.key("D", "d")
	dana.waitFor("4D on the waste", wasteTop("4D"))
	dana.click("undo", "#undo")
	dana.waitJS("the draw undone", `window.klondike.state.round.view.waste_size === 0 && window.klondike.state.round.view.moves === 2`)
	dana.dblclick("AH up", card("T6", "AH"))
	dana.waitFor("AH up", card("FH", "AH"))
	// Solo practice offers hints, and a hinted game says so.
	dana.click("hint", "#hint")
	dana.waitJS("a hint shown", `[...document.querySelectorAll('.toast')].some((e) => e.textContent.startsWith('Hint: '))`)
	dana.waitJS("the game marked as helped", `(window.klondike.state.leaderboard?.entries || []).some((e) => e.helped)`)
	dana.resignIfPlaying()
	dana.waitFor("the results", `#commitment-check[data-state="known"]`)
	if href := eval[string](dana, "play again", `document.getElementById('play-again').getAttribute('href')`); href != "/deal/1?draw=3" {
		t.Errorf("play again %q", href)
	}

	// Back in the lobby, solo practice on a random deal.
	dana.click("back to the lobby", "#to-lobby")
	dana.waitFor("the lobby", "#play-title")
	dana.click("solo practice", "#solo")
	if dana.waitBoardOrResults() {
		dana.resignIfPlaying()
	}
	dana.waitFor("a passing commitment check", `#commitment-check[data-state="ok"]`)
}

// TestQuickMatch: two players asking for a quick match land in the same one,
// which starts by itself.
func TestQuickMatch(t *testing.T) {
	t.Parallel()
	base := startServer(t)
	b := newBrowser(t)
	p1 := b.newPage("erin", base)
	p2 := b.newPage("frank", base)
	p1.enterName("/", "Erin")
	p2.enterName("/", "Frank")
	p1.click("quick match", "#quick-match")
	p1.waitFor("the waiting room", "#room-title")
	p2.click("quick match", "#quick-match")
	p2.waitFor("in the match", "#room-title, .board, #countdown")
	c1 := eval[string](p1, "code", `window.klondike.state.match.code`)
	c2 := eval[string](p2, "code", `window.klondike.state.match.code`)
	if c1 != c2 {
		t.Fatalf("quick match put them apart: %s and %s", c1, c2)
	}
	start := time.Now()
	p1.waitBoardOrResults()
	p2.waitBoardOrResults()
	t.Logf("the quick match started after %v", time.Since(start).Round(10*time.Millisecond))
	p1.resignIfPlaying()
	p2.resignIfPlaying()
	p1.waitFor("the results", "#commitment-check")
	p2.waitFor("the results", "#commitment-check")
}

// TestKeyboardOnly plays with the keyboard alone: Tab reaches the piles,
// arrows move between them, Enter picks and places, and focus is visible.
func TestKeyboardOnly(t *testing.T) {
	t.Parallel()
	base := startServer(t)
	b := newBrowser(t)
	p := b.newPage("gina", base)
	p.enterName("/deal/1?draw=3", "Gina")
	p.click("play it solo", "#deal-solo")
	p.waitFor("the board", card("T6", "AH"))
	// A number chooses (and focuses) a pile; F sends its card up.
	p.key("6", "6")
	p.waitJS("pile 6 focused and chosen", `document.activeElement && document.activeElement.dataset.slot === 'T6' && document.activeElement.getAttribute('aria-pressed') === 'true'`)
	p.key("F", "f")
	p.waitFor("AH up", card("FH", "AH"))
	// Arrow keys move between the piles; Enter picks a pile's run, then
	// places it on the focused pile.
	p.key("ArrowRight", kb.ArrowRight)
	p.waitJS("pile 7 focused", `document.activeElement && document.activeElement.dataset.slot === 'T7'`)
	outline := eval[string](p, "focus style", `getComputedStyle(document.activeElement).outlineStyle`)
	if outline == "none" || outline == "" {
		t.Errorf("no visible focus on a pile: outline %q", outline)
	}
	p.key("Enter", kb.Enter)
	p.waitJS("pile 7 chosen", `document.querySelector('.board [data-slot="T7"]').getAttribute('aria-pressed') === 'true'`)
	p.key("ArrowLeft", kb.ArrowLeft)
	p.key("Enter", kb.Enter)
	// AS cannot go on QD: the server says why.
	p.waitText("the refusal", ".toast", "AS on QD")
	p.key("7", "7")
	p.key("F", "f")
	p.waitFor("AS up", card("FS", "AS"))
	p.key("7", "7")
	p.key("6", "6")
	p.waitFor("JS onto QD", card("T6", "JS"))
	// Undo is on in practice, even for a move that turned a card.
	p.key("U", "u")
	p.waitText("the undo", "#moves", "Moves 4")
	p.waitFor("JS back on pile 7", card("T7", "JS"))
	labels := eval[[]string](p, "labels", `[...document.querySelectorAll('.board [data-slot]')].map(e => e.getAttribute('aria-label'))`)
	if len(labels) != 13 {
		t.Fatalf("%d labelled slots, want 13", len(labels))
	}
	for _, l := range labels {
		if l == "" {
			t.Errorf("a slot without a label")
		}
	}
	if !strings.Contains(strings.Join(labels, "|"), "Pile 6: 4 face down; queen of diamonds") {
		t.Errorf("pile labels: %q", labels)
	}

	// Four-colour suits: clubs turn green, diamonds blue; remembered.
	black := eval[string](p, "club colour", `getComputedStyle(document.querySelector('.board .card.suit-C')).color`)
	p.click("four colours", "#four-colour")
	green := eval[string](p, "club colour", `getComputedStyle(document.querySelector('.board .card.suit-C')).color`)
	if green == black || !eval[bool](p, "remembered", `localStorage.getItem('klondike.fourColour') === '1'`) {
		t.Errorf("four-colour suits: clubs %s before, %s after", black, green)
	}
	// A phone-sized screen.
	p.do("phone viewport", chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2)))
	p.key("D", "d")
	p.waitJS("drawn", `window.klondike.state.round.view.moves === 5`)
	eval[bool](p, "blur", `(() => { document.activeElement && document.activeElement.blur(); return true; })()`)
	width := eval[int](p, "page width", `document.documentElement.scrollWidth`)
	if width > 390 {
		t.Errorf("the board overflows a phone screen: %d px wide", width)
	}
}

// playSome plays up to n legal moves of the page's game with the keyboard
// alone, chosen from what the view allows (foundation moves first).
func (p *page) playSome(n int) {
	p.t.Helper()
	for i := 0; i < n; i++ {
		move := eval[string](p, "choose a move", fmt.Sprintf(`(async () => {
			const E = await import('/static/%s/js/engine.js');
			const s = window.klondike.state;
			if (!s.round || !s.round.view || s.roundOver || s.round.view.status !== 'playing') return '';
			const v = s.round.view;
			// Useful moves only: a tableau move must carry a pile's whole
			// face-up part off face-down cards, so that it turns one up.
			const useful = (m) => {
				if (m.startsWith('F')) return false;
				const t = /^T(\d)-T(\d)$/.exec(m);
				if (!t) return true;
				const src = v.tableau[+t[1] - 1], dst = v.tableau[+t[2] - 1];
				const up = src.up, top = dst.up.length ? dst.up[dst.up.length - 1] : null;
				return src.down > 0 && E.fitLength(up, E.runLength(up), top) === up.length;
			};
			const legal = E.legalFromView(v, s.round.rules).filter(useful);
			const rank = (m) => m.endsWith('-F') ? 0 : m.startsWith('T') ? 1 : m.startsWith('W-') ? 2 : 3;
			legal.sort((a, b) => rank(a) - rank(b));
			return legal[0] || '';
		})()`, web.Version()))
		if move == "" {
			return
		}
		before := eval[int](p, "moves so far", `window.klondike.state.round.view.moves`)
		var keys []string
		switch {
		case move == "D" || move == "R":
			keys = []string{"d"}
		case move == "W-F":
			keys = []string{"w", "f"}
		case strings.HasPrefix(move, "W-T"):
			keys = []string{"w", move[3:]}
		case strings.HasSuffix(move, "-F"):
			keys = []string{move[1:2], "f"}
		default: // Tn-Tm
			keys = []string{move[1:2], move[4:5]}
		}
		for _, k := range keys {
			p.key(move, k)
		}
		p.waitJS("the move "+move+" answered", fmt.Sprintf(`(() => { const s = window.klondike.state; return !!s.roundOver || s.round.view.moves > %d; })()`, before))
	}
}

// TestRateLimitedMoveSentAgain: a move dropped as rate_limited is sent
// again with the same seq. It does not run in parallel with the others:
// its draw must reach the server within the half second that the budget
// takes to refill a message, which a busy machine could miss.
func TestRateLimitedMoveSentAgain(t *testing.T) {
	base := startServerWith(t, api.Limits{MsgRate: 2, MsgBurst: 3})
	b := newBrowser(t)
	p := b.newPage("hal", base)
	p.enterName("/deal/1?draw=3", "Hal")
	p.click("play it solo", "#deal-solo")
	p.waitFor("the board", card("T6", "AH"))
	time.Sleep(1600 * time.Millisecond) // the message budget fills up again

	// Spend the budget, then draw: the draw is dropped as rate_limited and
	// sent again a little later with the same seq.
	eval[bool](p, "spend the budget", `(() => { for (let i = 0; i < 3; i++) window.klondike.state.conn.send('list_matches'); return true; })()`)
	p.key("D", "d")
	p.waitText("the slow-down notice", ".toast", "Slow down")
	p.waitJS("the draw played", `window.klondike.state.round.view.moves === 1 && window.klondike.state.round.lastSeq === 1`)
	p.waitFor("4D on the waste", wasteTop("4D"))
}

// TestResyncFromExpected: a client whose seq is out of step resyncs from
// the server's "expected" by resuming. The default message budget leaves
// every message of it handled, so nothing waits for a refill.
func TestResyncFromExpected(t *testing.T) {
	t.Parallel()
	base := startServer(t)
	b := newBrowser(t)
	p := b.newPage("hal", base)
	p.enterName("/deal/1?draw=3", "Hal")
	p.click("play it solo", "#deal-solo")
	p.waitFor("the board", card("T6", "AH"))
	p.key("D", "d")
	p.waitJS("the draw played", `window.klondike.state.round.view.moves === 1 && window.klondike.state.round.lastSeq === 1`)
	p.waitFor("4D on the waste", wasteTop("4D"))

	// The client forgets an acknowledged move: the server answers
	// out_of_order with the seq it expects, and the client resyncs.
	eval[bool](p, "lose a seq", `(() => { window.klondike.state.round.lastSeq = 0; return true; })()`)
	p.dblclick("AH up, at a used seq", card("T6", "AH"))
	p.waitJS("resynced", `window.klondike.state.connected && window.klondike.state.round.lastSeq === 1`)
	if eval[bool](p, "AH still down", `!!document.querySelector('.board [data-slot="FH"] .card')`) {
		t.Errorf("a refused move shows as done")
	}
	p.dblclick("AH up after the resync", card("T6", "AH"))
	p.waitFor("AH up", card("FH", "AH"))
	if got := eval[int](p, "last seq", `window.klondike.state.round.lastSeq`); got != 2 {
		t.Errorf("last seq %d, want 2", got)
	}
}

// TestConsoleErrorsAreCaught checks the harness itself: an error in a page's
// console is seen.
func TestConsoleErrorsAreCaught(t *testing.T) {
	t.Parallel()
	base := startServer(t)
	b := newBrowser(t)
	p := b.newPage("console", base)
	p.navigate("/")
	p.waitFor("the page", "#name-input")
	eval[bool](p, "log an error", `(() => { console.error('deliberate'); setTimeout(() => { throw new Error('thrown'); }, 0); return true; })()`)
	deadline := time.Now().Add(stepTimeout)
	for {
		p.mu.Lock()
		n := len(p.problems)
		text := strings.Join(p.problems, "\n")
		p.mu.Unlock()
		if n >= 2 && strings.Contains(text, "deliberate") && strings.Contains(text, "thrown") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("console errors not caught: %q", text)
		}
		time.Sleep(20 * time.Millisecond)
	}
	p.mu.Lock()
	p.problems = nil
	p.mu.Unlock()
}
