package webtest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// The tests of this file hold what issue 38 found in a new player's first
// hour with the web client, and what was fixed: each checks what a person
// sees (the computed layout, the text shown), not the state behind it.

// TestFirstHourBrandLinkLeadsToTheLobby (issue 38, finding 1): after a
// finished match, the top bar's "Klondike race, back to the lobby" shows the
// lobby, not the match's results, at "/"; so does reloading "/", for the
// player who followed the link and for one who did not.
func TestFirstHourBrandLinkLeadsToTheLobby(t *testing.T) {
	t.Parallel()
	base := startServer(t)
	b := newBrowser(t)
	alice := b.newPage("alice", base)
	bob := b.newPage("bob", base)

	// Two players race deal #1 to the end of its only round.
	alice.enterName("/", "Alice")
	alice.setValue("#set-seed", "1")
	alice.setValue("#set-max_players", "2")
	alice.setValue("#set-countdown_s", "0")
	alice.setValue("#set-time_limit_s", "600")
	alice.click("create", "#create-submit")
	alice.waitText("the waiting room", "#room-title", "Match ")
	code := eval[string](alice, "the code", `window.klondike.state.match.code`)
	bob.enterName("/m/"+code, "Bob")
	bob.waitText("Bob's room", "#room-title", code)
	bob.click("ready", "#ready-toggle")
	alice.waitFor("Bob ready", `#players li[data-player="Bob"] .ready.yes`)
	alice.click("start", "#start-match")
	for _, p := range []*page{alice, bob} {
		p.waitFor("the board", card("T6", "AH"))
	}
	alice.dblclick("AH up", card("T6", "AH"))
	alice.waitFor("AH up", card("FH", "AH"))
	for _, p := range []*page{alice, bob} {
		p.resignIfPlaying()
	}
	for _, p := range []*page{alice, bob} {
		p.waitText("the results", "#results-title", "Round 1 results")
		p.waitJS("the match over", `!!window.klondike.state.match && window.klondike.state.match.state === 'over'`)
	}

	// The brand link, found by what it says to a screen reader.
	const brand = `.topbar a.brand[href="/"]`
	if label := eval[string](alice, "the brand's label", fmt.Sprintf(`document.querySelector(%s).getAttribute('aria-label')`, jsString(brand))); label != "Klondike race, back to the lobby" {
		t.Errorf("the brand link's label %q", label)
	}
	alice.click("the brand link", brand)
	alice.wantLobby("after the brand link")
	if path := eval[string](alice, "the path", `location.pathname + location.search`); path != "/" {
		t.Errorf("after the brand link the path is %q, want /", path)
	}

	// A reload of / stays in the lobby.
	alice.do("reload", chromedp.Reload())
	alice.wantLobby("after reloading /")

	// Bob, who did not follow the link, opens / afresh: the lobby too,
	// though the server still keeps his finished match.
	bob.navigate("/")
	bob.wantLobby("after opening / in the tab of the results")
}

// wantLobby waits for the lobby, then watches the page for a second (the
// snapshot of a finished match that a resumed session brings back comes
// right after the welcome) and fails the test if the lobby gives way or
// the results show.
func (p *page) wantLobby(when string) {
	p.t.Helper()
	// A link followed by loading the page anew (the old brand link) makes
	// the page of the wait go: the wait goes on in the new one.
	p.waitAcrossLoad("the lobby "+when, fmt.Sprintf(`window.klondike.state.welcomed && %s('#play-title')`, shownJS))
	bad := eval[string](p, "the lobby stays "+when, fmt.Sprintf(`new Promise((resolve) => {
		const shown = %s, until = performance.now() + 1000;
		const look = () => {
			if (shown('#results-title')) return resolve('the results show: ' + document.getElementById('results-title').innerText);
			if (!shown('#play-title')) return resolve('the lobby went: ' + (document.querySelector('main').innerText || '').slice(0, 200));
			if (performance.now() > until) return resolve('');
			setTimeout(look, 25);
		};
		look();
	})`, shownJS))
	if bad != "" {
		p.t.Errorf("%s: %s: %s", p.name, when, bad)
	}
	if title := p.textOf("#play-title"); !strings.HasPrefix(title, "Hello, ") {
		p.t.Errorf("%s: %s: the lobby's heading reads %q", p.name, when, title)
	}
}

// A formField is what a person sees of a form's field: its value, the text
// of the option shown (a select), whether it can be changed, and whether it
// is seen at all.
type formField struct {
	Value    string
	Text     string
	Disabled bool
	Shown    bool
}

// formFieldOf reads the field matched by css.
func (p *page) formFieldOf(css string) formField {
	p.t.Helper()
	return eval[formField](p, "the field "+css, fmt.Sprintf(`(() => {
		const e = document.querySelector(%s);
		if (!e) throw new Error('no field ' + %[1]s);
		const opt = e.selectedOptions && e.selectedOptions[0];
		return { Value: e.value, Text: opt ? opt.textContent : '', Disabled: e.matches(':disabled'), Shown: %s(e) };
	})()`, jsString(css), shownJS))
}

// TestFirstHourLeavingWhiteheadFreesDrawAndPasses (issue 38, finding 2):
// Whitehead fixes the create form's draw and passes (draw 1, one pass, the
// fields disabled); choosing Double Klondike after it frees both and shows
// Double Klondike's own defaults (draw 3, the game's passes: unlimited),
// and the match created so is dealt with them. Both ways to Whitehead are
// taken: choosing it in a new form, and a form that opens on it because the
// last match was a Whitehead one.
func TestFirstHourLeavingWhiteheadFreesDrawAndPasses(t *testing.T) {
	t.Parallel()
	base := startServer(t)
	b := newBrowser(t)
	p := b.newPage("wren", base)
	p.enterName("/", "Wren")
	p.waitShown("the create form", "#set-game")

	wantWhitehead := func(when string) {
		t.Helper()
		want := map[string]formField{
			"#set-draw":   {Value: "1", Text: "Draw 1", Disabled: true, Shown: true},
			"#set-passes": {Value: "1", Text: "1 pass", Disabled: true, Shown: true},
		}
		for css, w := range want {
			if got := p.formFieldOf(css); got != w {
				t.Errorf("%s: %s is %+v, want %+v", when, css, got, w)
			}
		}
	}
	wantDouble := func(when string) {
		t.Helper()
		if got, want := p.formFieldOf("#set-draw"), (formField{Value: "3", Text: "Draw 3", Shown: true}); got != want {
			t.Errorf("%s: the draw is %+v, want %+v", when, got, want)
		}
		// The passes field shows the game's default (the server's 0,
		// unlimited, in Double Klondike) or says unlimited outright.
		got := p.formFieldOf("#set-passes")
		if got != (formField{Value: "", Text: "Default", Shown: true}) && got != (formField{Value: "0", Text: "Unlimited", Shown: true}) {
			t.Errorf("%s: the passes are %+v, want Default or Unlimited, enabled", when, got)
		}
	}
	// settingsLine is the room's line of the match's settings.
	settingsLine := func() string {
		t.Helper()
		return eval[string](p, "the room's settings", `(() => { const e = document.querySelector('#room-title ~ p.muted:not(.game-summary)'); return e ? e.innerText : ''; })()`)
	}

	// A new form: Whitehead, then Double Klondike.
	p.setValue("#set-game", "whitehead")
	wantWhitehead("Whitehead chosen")
	p.setValue("#set-game", "double_klondike")
	wantDouble("Double Klondike chosen after Whitehead")

	// A Whitehead match, left before it starts: the next form opens on
	// Whitehead, the last settings.
	p.setValue("#set-game", "whitehead")
	p.setValue("#set-max_players", "1")
	p.setValue("#set-countdown_s", "0")
	p.click("create", "#create-submit")
	p.waitText("the waiting room", "#room-title", "Match ")
	if line := settingsLine(); !strings.HasPrefix(line, "Whitehead · draw 1 · 1 pass") {
		t.Errorf("the Whitehead room's settings %q", line)
	}
	p.click("leave", "#leave")
	p.waitShown("the lobby", "#play-title")
	p.waitShown("the create form", "#set-game")
	if g := p.formFieldOf("#set-game"); g.Value != "whitehead" || g.Text != "Whitehead" {
		t.Fatalf("the form opens on %+v, want Whitehead, the last match's game", g)
	}
	wantWhitehead("the form opened on Whitehead")
	p.setValue("#set-game", "double_klondike")
	wantDouble("Double Klondike chosen in a form opened on Whitehead")

	// The match created so is a Double Klondike match in draw 3 with
	// unlimited passes, and deals three cards a draw.
	p.click("create", "#create-submit")
	p.waitText("the waiting room", "#room-title", "Match ")
	if line := settingsLine(); !strings.HasPrefix(line, "Double Klondike · draw 3 · unlimited passes") {
		t.Errorf("the Double Klondike room's settings %q, want it to begin \"Double Klondike · draw 3 · unlimited passes\"", line)
	}
	s := eval[map[string]any](p, "the match's settings", `window.klondike.state.match.settings`)
	if s["game"] != "double_klondike" || s["draw"] != 3.0 || (s["passes"] != nil && s["passes"] != 0.0) {
		t.Errorf("the match's settings: game %v, draw %v, passes %v; want double_klondike, 3, 0 (unlimited)", s["game"], s["draw"], s["passes"])
	}
	p.click("start", "#start-match")
	p.waitFor("the Double Klondike board", `.board.double [data-slot="S"]`)
	p.key("draw", "d")
	p.waitJS("a draw", `window.klondike.state.round.view.moves === 1`)
	if n := eval[int](p, "the waste's cards", `document.querySelectorAll('.board [data-slot="W"] .card.fan').length`); n != 3 {
		t.Errorf("one draw shows %d cards on the waste, want 3 (draw 3)", n)
	}
	r := eval[map[string]any](p, "the round's rules", `window.klondike.state.round.rules`)
	if r["draw"] != 3.0 || (r["passes"] != nil && r["passes"] != 0.0) {
		t.Errorf("the round is dealt with draw %v, passes %v; want 3, 0 (unlimited)", r["draw"], r["passes"])
	}
}

// TestFirstHourOnAPhone (issue 38, finding 5), at 390×844: the invite
// field shows the match's code; the waste's middle card shows at least half
// its width when draw 3 fans three cards; the help speaks of taps ("How to
// play"), not of "Keyboard and mouse"; and on the results the line
// "Commitment verified: SHA-256(…)" wraps inside its box, the page no wider
// than the screen, there and at 320 px.
func TestFirstHourOnAPhone(t *testing.T) {
	t.Parallel()
	base := startServer(t)
	b := newBrowser(t)
	pia := b.newPage("pia", base)
	pia.viewport(phoneW, phoneH, 2)
	quinn := b.newPage("quinn", base)
	quinn.viewport(desktopW, desktopH, 1)

	// A match on a random deal (committed to, then revealed), in draw 3.
	pia.enterName("/", "Pia")
	pia.setValue("#set-draw", "3")
	pia.setValue("#set-max_players", "2")
	pia.setValue("#set-countdown_s", "0")
	pia.setValue("#set-time_limit_s", "600")
	pia.click("create", "#create-submit")
	pia.waitText("the waiting room", "#room-title", "Match ")
	code := eval[string](pia, "the code", `window.klondike.state.match.code`)

	// The invite field shows the code: the end of the link is in the
	// field's view, and the code fits in it.
	pia.waitShown("the invite field", "#invite-link")
	invite := eval[struct {
		Value                string
		Scroll, Client, Full float64
		Code, Room           float64
	}](pia, "the invite field", fmt.Sprintf(`new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => {
		const e = document.getElementById('invite-link'), cs = getComputedStyle(e);
		const ctx = document.createElement('canvas').getContext('2d');
		ctx.font = cs.font;
		r({ Value: e.value, Scroll: e.scrollLeft, Client: e.clientWidth, Full: e.scrollWidth,
			Code: ctx.measureText(%s).width,
			Room: e.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) });
	})))`, jsString("/m/"+code)))
	if !strings.HasSuffix(invite.Value, "/m/"+code) {
		t.Errorf("the invite link %q does not end in /m/%s", invite.Value, code)
	}
	if invite.Scroll+invite.Client < invite.Full-1 || invite.Code > invite.Room {
		t.Errorf("the invite field shows %.0f-%.0f px of its %.0f px link, the end (/m/%s, %.0f px) out of view", invite.Scroll, invite.Scroll+invite.Client, invite.Full, code, invite.Code)
	}

	quinn.enterName("/m/"+code, "Quinn")
	quinn.waitText("Quinn's room", "#room-title", code)
	quinn.click("ready", "#ready-toggle")
	pia.waitFor("Quinn ready", `#players li[data-player="Quinn"] .ready.yes`)
	pia.click("start", "#start-match")

	// Three cards fanned on the waste: the middle one shows at least half
	// its width, the part nothing lies on (48% before issue 38's fix).
	pia.waitFor("the board", `.board [data-slot="S"]`)
	pia.key("draw", "d")
	pia.waitJS("three cards on the waste", `window.klondike.state.round.view.moves === 1 && document.querySelectorAll('.board [data-slot="W"] .card.fan').length === 3`)
	eval[bool](pia, "scroll to the board", `(() => { document.querySelector('.board [data-slot="W"]').scrollIntoView({ block: 'center' }); return true; })()`)
	uncovered := eval[float64](pia, "the middle card's face", `(() => {
		const mid = document.querySelectorAll('.board [data-slot="W"] .card.fan')[1];
		const r = mid.getBoundingClientRect();
		let seen = 0;
		const n = 100;
		for (let i = 0; i < n; i++) {
			const hit = document.elementFromPoint(r.left + (i + 0.5) * r.width / n, r.top + r.height / 2);
			if (hit && hit.closest('.card') === mid) seen++;
		}
		return seen / n;
	})()`)
	if uncovered < 0.5 {
		t.Errorf("the waste's middle card shows %.0f%% of its width, want half at least", uncovered*100)
	}

	// The help beside the board speaks of taps on the phone, of keys and a
	// mouse on the desktop.
	pia.waitShown("the help", "#keys-help summary")
	if got := pia.textOf("#keys-help summary"); got != "How to play" {
		t.Errorf("the phone's help is titled %q, want \"How to play\" (taps, not \"Keyboard and mouse\")", got)
	}
	quinn.waitShown("the help", "#keys-help summary")
	if got := quinn.textOf("#keys-help summary"); got != "Keyboard and mouse" {
		t.Errorf("the desktop's help is titled %q, want \"Keyboard and mouse\"", got)
	}

	// The results: the commitment's line inside its box, the page inside
	// the screen.
	for _, p := range []*page{pia, quinn} {
		p.resignIfPlaying()
	}
	pia.waitText("the results", "#results-title", "Round 1 results")
	pia.waitFor("the commitment checked", `#commitment-check[data-state="ok"]`)
	pia.waitShown("the commitment's line", "#commitment-check")
	// The hash reads left to right in any language: the line isolates it
	// (U+2066…U+2069), which a person does not see.
	isolates := strings.NewReplacer("\u2066", "", "\u2067", "", "\u2068", "", "\u2069", "")
	if got := isolates.Replace(pia.textOf("#commitment-check")); !strings.Contains(got, "Commitment verified: SHA-256(") {
		t.Errorf("the commitment's line reads %q", got)
	}
	// The line is checked as dealt, then with the widest deal number the
	// server can draw (20 digits: 46% of random deals have as many), the
	// longest run the line may not break; at 390 px, and at 320 px, the
	// narrowest phone in use (an iPhone SE), where the run is wider than
	// the box: Chromium breaks the line after "SHA-", and at 390 px what
	// follows fits even without a wrap.
	lineFits := func(seed string) {
		t.Helper()
		fit := eval[struct {
			Scroll, Client, Left, Right, Page, Screen float64
		}](pia, "the commitment's box", `new Promise((r) => requestAnimationFrame(() => {
			const e = document.getElementById('commitment-check'), b = e.getBoundingClientRect();
			r({ Scroll: e.scrollWidth, Client: e.clientWidth, Left: b.left, Right: b.right,
				Page: document.documentElement.scrollWidth, Screen: document.documentElement.clientWidth });
		}))`)
		if fit.Scroll > fit.Client+1 {
			t.Errorf("%.0f px wide, deal #%s: the commitment's line is %.0f px wide in its %.0f px box", fit.Screen, seed, fit.Scroll, fit.Client)
		}
		if fit.Left < 0 || fit.Right > fit.Screen+0.5 {
			t.Errorf("%.0f px wide, deal #%s: the commitment's box spans %.0f-%.0f px", fit.Screen, seed, fit.Left, fit.Right)
		}
		if fit.Page > fit.Screen {
			t.Errorf("%.0f px wide, deal #%s: the results are %.0f px wide", fit.Screen, seed, fit.Page)
		}
	}
	seed := eval[string](pia, "the deal's number", `String(window.klondike.state.roundOver.deal.seed)`)
	lineFits(seed)
	const widest = "18446744073709551615" // math.MaxUint64
	if !eval[bool](pia, "the widest deal number in the line", fmt.Sprintf(`(() => {
		const w = document.createTreeWalker(document.getElementById('commitment-check'), NodeFilter.SHOW_TEXT);
		let done = false;
		for (let n = w.nextNode(); n; n = w.nextNode()) {
			if (n.data.includes('salt:' + %s)) { n.data = n.data.replace('salt:' + %[1]s, 'salt:' + %s); done = true; }
		}
		return done;
	})()`, jsString(seed), jsString(widest))) {
		t.Fatalf("deal #%s is not in the commitment's line %q", seed, pia.textOf("#commitment-check"))
	}
	lineFits(widest)
	pia.viewport(320, 568, 2)
	lineFits(widest)
}
