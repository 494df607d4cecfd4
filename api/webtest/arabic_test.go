package webtest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"klondike/api/servertest"
	"klondike/api/web"
	"klondike/lobby"
	"klondike/lobby/memstore"
	"klondike/match"
)

// The names the Arabic tests play as: Arabic names, as an Arabic reader
// would type them.
const (
	salma = "سلمى"
	karim = "كريم"
)

// TestArabicRace: two Arabic readers race a friend on deal #1: the host
// makes the match in the lobby, the guest joins by its code, both play,
// one's illegal drop is refused in words, both resign, and the host opens
// the replay. The name screen, the lobby, the waiting room (host's and
// guest's), the countdown, the board (with its keyboard help and the
// resign question), the results and the replay are each checked
// (checkArabic) at 1280×800 and 390×844.
func TestArabicRace(t *testing.T) {
	t.Parallel()
	// The results stay until the test has looked at them.
	base := startServerConfig(t, servertest.Config{Match: match.Config{Intermission: time.Minute}})
	b := newBrowser(t)
	host := b.newArabicPage("salma", base)
	guest := b.newArabicPage("karim", base)

	host.navigate("/")
	host.waitShown("the name screen", "#name-input")
	host.checkArabicSizes("the name screen", "name", nil)
	host.enterName("/", salma)
	host.waitShown("the lobby", "#play-title")
	host.checkArabicSizes("the lobby", "lobby", nil, salma)

	// The host makes a match on deal #1; the guest joins by its code.
	host.setValue("#set-seed", "1")
	host.setValue("#set-draw", "3")
	host.setValue("#set-max_players", "4")
	host.setValue("#set-countdown_s", "6")
	host.setValue("#set-time_limit_s", "600")
	host.click("create", "#create-submit")
	host.waitShown("the waiting room", "#room-title")
	code := eval[string](host, "the code", `window.klondike.state.match.code`)
	guest.enterName("/", karim)
	guest.waitShown("the open match listed", fmt.Sprintf(`#open-matches li[data-code="%s"]`, code))
	guest.checkArabic("the lobby with an open match", salma, karim, code)
	guest.do("type the code",
		chromedp.SendKeys(chromedp.CSS("#join-code"), strings.ToLower(code)),
		chromedp.Click(chromedp.CSS("#join-go")))
	guest.waitText("the waiting room", "#room-title", code)
	host.waitFor("the guest in the room", fmt.Sprintf(`#players li[data-player="%s"]`, karim))
	host.checkArabicSizes("the host's waiting room", "room-host", nil, salma, karim, code)
	guest.click("ready", "#ready-toggle")
	host.waitFor("the guest ready", fmt.Sprintf(`#players li[data-player="%s"] .ready.yes`, karim))
	guest.checkArabicSizes("the guest's waiting room", "room-guest", nil, salma, karim, code)

	// The countdown (looked at while it lasts: a slow machine may let it
	// pass), then the board.
	guest.viewport(phoneW, phoneH, 2)
	host.click("start", "#start-match")
	for _, p := range []*page{host, guest} {
		p.waitJS("the countdown or the board", fmt.Sprintf(`%s('#countdown') || !!document.querySelector(%s)`, shownJS, jsString(card("T6", "AH"))))
		if !p.shown("#countdown") {
			t.Logf("%s: the countdown was over before it was looked at", p.name)
			continue
		}
		p.checkArabic("the countdown", salma, karim, code)
		p.screenshotTo("ar-countdown-" + p.name)
	}
	guest.viewport(desktopW, desktopH, 1)
	for _, p := range []*page{host, guest} {
		p.waitShown("the board", card("T6", "AH"))
		p.waitJS("past the countdown", `!document.getElementById('countdown') || document.getElementById('countdown').hidden`)
	}
	host.dblclick("AH up", card("T6", "AH"))
	host.waitFor("AH on its foundation", card("FH", "AH"))
	host.click("draw", `.board [data-slot="S"]`)
	host.waitFor("4D on the waste", wasteTop("4D"))
	host.drag("drag 4D onto 5C", wasteTop("4D"), card("T3", "5C"))
	host.waitFor("4D on pile 3", card("T3", "4D"))
	guest.waitFor("the host's moves on the leaderboard", fmt.Sprintf(`#leaderboard tr[data-player="%s"][data-foundation="1"]`, salma))
	host.checkArabicSizes("the board", "board", nil, salma, karim, code)
	host.checkArabicSizes("the board's keyboard help", "board-help", func() {
		eval[bool](host, "open the help", `(() => { const d = document.getElementById('keys-help'); d.open = true; d.scrollIntoView({ block: 'start' }); return true; })()`)
	}, salma, karim, code)

	// An illegal drop: the reason, in Arabic, with the cards as printed.
	guest.drag("drag QH onto TS", card("T1", "QH"), card("T2", "TS"))
	guest.waitShown("the reason", ".toast")
	if got := guest.textOf(".toast"); !strings.Contains(got, "Q♥") || !strings.Contains(got, "10♠") {
		t.Errorf("the refusal reads %q, want the cards as printed (Q♥, 10♠)", got)
	}
	guest.checkArabic("the board with a refused move", salma, karim, code)

	// Resigning asks first.
	guest.click("resign", "#resign")
	guest.waitShown("the question", "#confirm-yes")
	guest.checkArabicSizes("the resign question", "resign", nil, salma, karim, code)
	guest.click("confirm", "#confirm-yes")
	host.resignIfPlaying()
	for _, p := range []*page{host, guest} {
		p.waitShown("the results", "#results-title")
		p.waitFor("the known-deal check", `#commitment-check[data-state="known"]`)
	}
	host.checkArabicSizes("the results", "results", nil, salma, karim, code)
	guest.checkArabic("the guest's results", salma, karim, code)

	// The replay.
	host.click("open the replay", "#open-replay")
	host.waitFor("the replay verdict", `#replay-verdict[data-state="ok"]`)
	host.checkArabicSizes("the replay", "replay", func() {
		eval[bool](host, "show the replay", `(() => { document.getElementById('replay').scrollIntoView({ block: 'start' }); return true; })()`)
	}, salma, karim, code)
	host.click("first position", "#replay-first")
	host.click("next move", "#replay-next")
	host.waitText("move 1", "#replay-step", "T6-F")
	host.checkArabic("the replay's first move", salma, karim, code)
	host.click("back to the lobby", "#to-lobby")
	host.waitShown("the lobby", "#play-title")
}

// TestArabicChecksSeeProblems: the checks of checkArabic find what they
// look for, on an Arabic lobby given each fault: English words (in a
// paragraph, a <select>'s chosen option, a placeholder), text wider than
// its box, text beyond the screen's edge, a page left to right; and they
// pass over what a person does not see (aria-hidden, visually hidden, a
// closed <details>) and what is allowed (cards, notation, digests, tags,
// links, codes, known names).
func TestArabicChecksSeeProblems(t *testing.T) {
	t.Parallel()
	base := startServer(t)
	b := newBrowser(t)
	p := b.newArabicPage("salma", base)
	p.enterName("/", salma)
	p.waitShown("the lobby", "#play-title")
	before, _ := p.arabicProblems("the lobby as it is", salma)
	eval[bool](p, "add the faults", `(() => {
		const d = document.createElement('section');
		d.id = 'faults';
		d.innerHTML = '<p id="t-en">Quick match</p>' +
			'<p id="t-wide">نص عربي طويل جدا لا يلتف أبدا في هذا الصندوق</p>' +
			'<p id="t-out">خارج</p>' +
			'<p><span aria-hidden="true">Hidden words</span> <span class="visually-hidden">Screen reader words</span></p>' +
			'<details><summary>ملخص</summary>Closed words</details>' +
			'<p id="t-ok">W-T3 T6:3-T4 T7-F FH-T5 D U A\u2660 Q\u2665\ufe0e 10\u2666 3fa9c2d1…b0e4c7 ' + 'ab'.repeat(32) + ' #3F2A https://example.org/m/K7QX2M K7QX2M «Alice» #1 سلمى</p>' +
			'<select id="t-sel"><option>English words</option></select>' +
			'<input id="t-ph" placeholder="Your name">';
		// Styles through the CSSOM: the page's policy refuses style attributes.
		Object.assign(d.querySelector('#t-wide').style, { width: '80px', whiteSpace: 'nowrap' });
		Object.assign(d.querySelector('#t-out').style, { position: 'relative', left: '3000px', width: '50px' });
		document.getElementById('app').prepend(d);
		return true;
	})()`)
	got, _ := p.arabicProblems("the lobby with faults", salma, "Alice")
	eval[bool](p, "turn the page left to right", `(() => { document.documentElement.dir = 'ltr'; return true; })()`)
	ltr, _ := p.arabicProblems("the lobby left to right", salma, "Alice")
	all := strings.Join(append(got, ltr...), "\n")
	for _, want := range []string{
		`untranslated ["Quick" "match"] in p#t-en`,
		`overflows its box: p#t-wide`,
		`beyond the screen: p#t-out`,
		`untranslated ["English" "words"] in select#t-sel (chosen option)`,
		`untranslated ["Your" "name"] in input#t-ph (placeholder)`,
		`<html> has dir="ltr"`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("the checks missed %s; they found:\n%s", want, all)
		}
	}
	for _, unwanted := range []string{"Hidden", "Screen reader", "Closed", "t-ok", "Alice"} {
		if strings.Contains(all, unwanted) {
			t.Errorf("the checks flag %q, which is unseen or allowed:\n%s", unwanted, all)
		}
	}
	if n := len(got) - len(before); n != 5 {
		t.Errorf("the faults made %d problems, want 5:\n%s", n, strings.Join(got, "\n"))
	}
}

// More Arabic names: the daily board's other players.
const (
	dana  = "دانة"
	zaid  = "زيد"
	yara  = "يارا"
	yusuf = "يوسف"
)

// TestArabicDaily: an Arabic reader opens the daily deals from their
// link: the name screen's offer, today's two rounds (one player so far,
// counted in Arabic), the whole commitment, an attempt at the draw 3
// round with the leader's ghost, the resign question, the page after it
// (two players), yesterday's closed rounds with their verified deals, and
// their replay, each checked (checkArabic) at 1280×800 and 390×844.
func TestArabicDaily(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	srv := startAsyncServer(t, 6*time.Second)
	playAttempt(t, srv.base, zaid, srv.dailyID(srv.today, "draw3"), "T6-F", "T7-F")
	playAttempt(t, srv.base, yara, srv.dailyID(srv.yesterday, "draw3"), "T6-F")
	playAttempt(t, srv.base, yusuf, srv.dailyID(srv.yesterday, "draw3"), "D")
	names := []string{dana, zaid, yara, yusuf}

	p := b.newArabicPage("dana", srv.base)
	p.navigate("/daily")
	p.waitShown("the link's offer on the name screen", "#waiting-link")
	p.checkArabicSizes("the name screen of a daily link", "daily-name", nil)
	p.enterName("/daily", dana)
	for _, v := range []string{"draw3", "draw1"} {
		p.waitShown(v+"'s Play", "#daily-"+v+"-play")
	}
	p.waitShown("Zaid on the draw 3 board", fmt.Sprintf(`#board-draw3-table tr[data-player="%s"]`, zaid))
	count := `.daily-round[data-variant="draw3"] .players-count`
	if got, want := p.textOf(count), p.arForm("async.players", 1, nil); got != want {
		t.Errorf("today's draw 3 counts %q, want %q (Arabic, one)", got, want)
	}
	p.checkArabicSizes("the daily deals", "daily", nil, names...)
	p.click("open the commitment", "#commit-draw3 summary")
	p.waitJS("the whole commitment", `document.querySelector('#commit-draw3 .commit-full').checkVisibility()`)
	p.checkArabicSizes("the daily deals, a commitment open", "daily-commitment", func() {
		eval[bool](p, "show the commitment", `(() => { document.getElementById('commit-draw3').scrollIntoView({ block: 'center' }); return true; })()`)
	}, names...)

	// An attempt: the board, the clock, the leader's ghost.
	p.click("play draw 3", "#daily-draw3-play")
	p.waitShown("the board", card("T6", "AH"))
	p.waitShown("the ghost panel", "#ghosts")
	p.waitText("the leader", "#ghosts", zaid)
	p.dblclick("AH up", card("T6", "AH"))
	p.waitShown("AH on its foundation", card("FH", "AH"))
	p.checkArabicSizes("the daily attempt", "daily-board", nil, names...)
	p.click("resign", "#resign")
	p.waitShown("the question", "#confirm-yes")
	p.checkArabic("the daily resign question", names...)
	p.click("confirm", "#confirm-yes")
	p.waitJS("the attempt over", `!window.klondike.state.attempt && !!window.klondike.state.attemptOver`)
	p.waitShown("the result", "#daily-draw3-played")
	p.waitShown("Dana on the board", fmt.Sprintf(`#board-draw3-table tr.me[data-player="%s"]`, dana))
	if got, want := p.textOf(count), p.arForm("async.players", 2, nil); got != want {
		t.Errorf("today's draw 3 counts %q, want %q (Arabic, two)", got, want)
	}
	p.checkArabicSizes("the daily deals, played", "daily-played", nil, names...)

	// Yesterday's rounds, closed: the final boards, the deals verified.
	time.Sleep(time.Until(srv.yesterdayCloses.Add(100 * time.Millisecond)))
	p.navigate("/daily")
	p.waitShown("yesterday's results", "#yesterday")
	for _, v := range []string{"draw3", "draw1"} {
		p.waitFor(v+"'s commitment checked", "#reveal-"+v+`-check[data-state="ok"]`)
	}
	p.waitShown("Yara on yesterday's board", fmt.Sprintf(`#board-%s-table tr[data-player="%s"]`, srv.dailyID(srv.yesterday, "draw3"), yara))
	p.checkArabicSizes("yesterday's daily deals", "daily-yesterday", func() {
		eval[bool](p, "show yesterday", `(() => { document.getElementById('yesterday').scrollIntoView({ block: 'start' }); return true; })()`)
	}, names...)
	p.click("yesterday's replays", "#reveal-draw3-replay")
	p.waitFor("the replay verdict", `#replay-verdict[data-state="ok"]`)
	p.checkArabicSizes("yesterday's replay", "daily-replay", func() {
		eval[bool](p, "show the replay", `(() => { document.getElementById('replay').scrollIntoView({ block: 'start' }); return true; })()`)
	}, names...)
}

// TestArabicChallenge: an Arabic reader challenges a friend from the
// lobby and plays first; the friend, also reading Arabic, opens the link,
// plays with the creator's ghost and resigns; the creator closes the
// challenge and opens its replays; the friend reads their records. The
// lobby's challenge form, the attempt with its link to share, the
// creator's page, the link's name screen, the friend's page, the friend's
// attempt, the page after it, the closed challenge, its replay and the
// records are each checked (checkArabic) at 1280×800 and 390×844.
func TestArabicChallenge(t *testing.T) {
	t.Parallel()
	srv := startAsyncServer(t, time.Hour)
	b := newBrowser(t)
	laila := b.newArabicPage("laila", srv.base)
	badr := b.newArabicPage("badr", srv.base)
	names := []string{"ليلى", "بدر"}

	laila.enterName("/", names[0])
	laila.waitShown("the lobby's challenge button", "#challenge-open")
	laila.click("challenge a friend", "#challenge-open")
	laila.waitShown("the challenge form", "#challenge-panel")
	laila.checkArabicSizes("the lobby's challenge form", "challenge-form", func() {
		eval[bool](laila, "show the form", `(() => { document.getElementById('challenge-panel').scrollIntoView({ block: 'start' }); return true; })()`)
	}, names...)
	laila.setValue("#ch-seed", "1")
	laila.setValue("#ch-window", "3600")
	laila.click("make the challenge", "#challenge-submit")
	laila.waitShown("the board", card("T6", "AH"))
	laila.waitShown("the link to share", "#challenge-link")
	id := eval[string](laila, "the challenge's id", `window.klondike.state.attempt.asyncId`)
	laila.dblclick("AH up", card("T6", "AH"))
	laila.waitShown("AH up", card("FH", "AH"))
	laila.dblclick("AS up", card("T7", "AS"))
	laila.waitShown("AS up", card("FS", "AS"))
	laila.checkArabicSizes("the creator's attempt", "challenge-board", nil, append(names, id)...)
	laila.resignAttempt()
	laila.waitShown("the creator's page", "#challenge-title")
	laila.waitShown("the creator on the board", fmt.Sprintf(`#challenge-board-table tr.me[data-player="%s"]`, names[0]))
	laila.checkArabicSizes("the creator's challenge page", "challenge-creator", nil, append(names, id)...)

	// The friend follows the link.
	badr.navigate("/c/" + id)
	badr.waitShown("the link's offer on the name screen", "#waiting-link")
	badr.checkArabic("the name screen of a challenge link", id)
	badr.enterName("/c/"+id, names[1])
	badr.waitShown("the challenge", "#challenge-play")
	badr.waitText("who challenges him", "#challenge-title", names[0])
	if got, want := badr.textOf("#challenge-players"), badr.arForm("async.players", 1, nil); !strings.Contains(got, want) {
		t.Errorf("the challenge's players read %q, want %q (Arabic, one)", got, want)
	}
	badr.checkArabicSizes("the friend's challenge page", "challenge-guest", nil, append(names, id)...)
	badr.click("play", "#challenge-play")
	badr.waitShown("the board", card("T6", "AH"))
	badr.waitShown("the ghost panel", "#ghosts")
	badr.waitText("the creator as friend and leader", "#ghosts", names[0])
	badr.dblclick("AH up", card("T6", "AH"))
	badr.waitShown("AH up", card("FH", "AH"))
	badr.checkArabicSizes("the friend's attempt", "challenge-guest-board", nil, append(names, id)...)
	badr.resignAttempt()
	badr.waitShown("the friend on the board", fmt.Sprintf(`#challenge-board-table tr.me[data-player="%s"][data-rank="2"]`, names[1]))
	badr.checkArabicSizes("the friend's page after playing", "challenge-guest-played", nil, append(names, id)...)

	// The creator closes it: the final board, the open deal, the replays.
	laila.waitShown("the friend on the creator's board", fmt.Sprintf(`#challenge-board-table tr[data-player="%s"]`, names[1]))
	laila.click("close now", "#challenge-close")
	laila.waitShown("the question", "#confirm-yes")
	laila.checkArabic("the question before closing", append(names, id)...)
	laila.click("confirm", "#confirm-yes")
	laila.waitFor("the deal's check", `#challenge-reveal-check[data-state="known"]`)
	laila.checkArabicSizes("the closed challenge", "challenge-closed", nil, append(names, id)...)
	laila.click("the replays", "#challenge-reveal-replay")
	laila.waitFor("the replay verdict", `#replay-verdict[data-state="ok"]`)
	laila.checkArabicSizes("the challenge's replay", "challenge-replay", func() {
		eval[bool](laila, "show the replay", `(() => { document.getElementById('replay').scrollIntoView({ block: 'start' }); return true; })()`)
	}, append(names, id)...)

	// The friend's records.
	badr.click("my records", "#challenge-records")
	badr.waitShown("the records", `.record[data-variant="draw3"]`)
	badr.checkArabicSizes("the records", "records", nil, append(names, id)...)
}

// seedArabicLadder puts others players with Arabic names on the Klondike
// draw 3 ladder (rated 1400, 1410, …, established), and me (named name)
// on it with the ratings hist, one rated round each.
func seedArabicLadder(t *testing.T, rs lobby.Ratings, others int, me, name string, hist []float64) {
	t.Helper()
	seedOthers(t, rs, others, func(i int) (string, float64) {
		return fmt.Sprintf("لاعب %d", i+1), 1400 + 10*float64(i)
	})
	seedHistory(t, rs, me, name, hist)
}

// TestArabicProfileAndLadder: an Arabic reader plays deal #1 solo from
// its link and resigns, then reads their profile (records, the recent
// game and its replay, ratings with their chart), the ladder (thirteen
// players, counted in Arabic, their place among their neighbours) and the
// privacy page, each checked (checkArabic) at 1280×800 and 390×844.
func TestArabicProfileAndLadder(t *testing.T) {
	t.Parallel()
	rs := memstore.NewRatings()
	base := startServerConfig(t, servertest.Config{Ratings: rs})
	b := newBrowser(t)
	const nour = "نور"
	p := b.newArabicPage("nour", base)

	// Deal #1 from its link: the offer, the practice board, the results.
	p.navigate("/deal/1?draw=3")
	p.waitShown("the link's offer on the name screen", "#waiting-link")
	p.checkArabic("the name screen of a deal link")
	p.enterName("/deal/1?draw=3", nour)
	p.waitShown("the offer", "#offer-title")
	p.checkArabicSizes("the deal's offer", "deal-offer", nil, nour)
	p.click("play it solo", "#deal-solo")
	p.waitFor("the board", card("T6", "AH"))
	p.dblclick("AH up", card("T6", "AH"))
	p.waitFor("AH up", card("FH", "AH"))
	p.checkArabicSizes("the practice board", "practice-board", nil, nour)
	p.resignIfPlaying()
	p.waitShown("the results", "#results-title")
	p.checkArabicSizes("the practice's results", "practice-results", nil, nour)

	const others = 12
	seedArabicLadder(t, rs, others, p.me(), nour, []float64{1540, 1521, 1580, 1563, 1600, 1612})
	names := []string{nour}
	for i := range others {
		names = append(names, fmt.Sprintf("لاعب %d", i+1))
	}

	// The profile, from the top bar.
	p.click("the top bar's name", "#who")
	p.waitShown("the profile's records", "#profile-records .record")
	p.waitShown("the rating", `.rating-card[data-key="klondike/3"] .fig-rating .rating`)
	p.waitShown("the recent game", "#profile-recent tbody tr button")
	p.checkArabicSizes("the profile", "profile", nil, names...)
	p.checkArabicSizes("the profile's ratings", "profile-ratings", func() {
		eval[bool](p, "show the ratings", `(() => { document.getElementById('profile-ratings-title').scrollIntoView({ block: 'start' }); return true; })()`)
	}, names...)
	p.click("the recent game's replay", "#profile-recent tbody tr button")
	p.waitFor("the replay checked", `#profile-replay #replay-verdict[data-state="ok"]`)
	p.checkArabicSizes("the profile's replay", "profile-replay", func() {
		eval[bool](p, "show the replay", `(() => { document.getElementById('profile-replay').scrollIntoView({ block: 'start' }); return true; })()`)
	}, names...)

	// The ladder, from the profile.
	p.click("the ladder", `.rating-card[data-key="klondike/3"] .ladder-link`)
	p.waitFor("the ladder", "#ladder-table tbody tr")
	p.waitShown("my place", "#ladder-mine")
	if got, want := p.textOf("#ladder-count"), p.arForm("ladder.count", others+1, nil); got != want {
		t.Errorf("the ladder counts %q, want %q (Arabic, many)", got, want)
	}
	p.checkArabicSizes("the ladder", "ladder", nil, names...)

	// The privacy page, which names the keys the client may keep and the
	// values they hold: the language key holds "en" or "ar".
	p.navigate("/privacy")
	p.waitShown("the privacy page", "#privacy-keys")
	keys := []string{"klondike.token", "klondike.name", "klondike.fourColour", "klondike.lang", "klondike.settings", "klondike.commitments", "en", "ar"}
	p.checkArabicSizes("the privacy page", "privacy", nil, append(names, keys...)...)
}

// TestArabicLanguageSwitch: a reader whose browser speaks English chooses
// Arabic in the top bar's switch: the page turns Arabic and right to left
// at once, without a reload (checkArabic, at both sizes), in the lobby and
// in a game; the choice is stored and outlives a reload; switching back
// gives English, left to right. A link with ?lang=ar opens in Arabic and
// stores that choice too.
func TestArabicLanguageSwitch(t *testing.T) {
	t.Parallel()
	base := startServer(t)
	b := newBrowser(t)
	p := b.newPage("maya", base)
	const maya = "Maya"
	p.enterName("/", maya)
	p.waitShown("the lobby", "#play-title")
	if got := eval[string](p, "the language", `document.documentElement.lang + ' ' + document.documentElement.dir`); got != "en ltr" {
		t.Fatalf("an English browser's page is %q, want en ltr", got)
	}
	english := p.textOf("#play-title")
	p.waitShown("the language switch", "#lang-switch")
	if opts := eval[string](p, "the switch's options", `[...document.querySelectorAll('#lang-switch option')].map((o) => o.value + '=' + o.textContent).join(' ')`); opts != "ar=العربية en=English" {
		t.Errorf("the switch offers %q, want each language in its own words", opts)
	}

	// Arabic, at once: the same document (no reload), the same player.
	eval[bool](p, "mark the document", `(() => { window.sameDocument = true; return true; })()`)
	p.setValue("#lang-switch", "ar")
	p.waitJS("right to left", `document.documentElement.dir === 'rtl' && document.documentElement.lang.startsWith('ar')`)
	p.waitJS("the lobby redrawn", fmt.Sprintf(`document.getElementById('play-title') && document.getElementById('play-title').textContent !== %s`, jsString(english)))
	if !eval[bool](p, "the same document", `window.sameDocument === true`) {
		t.Errorf("the switch reloaded the page")
	}
	if got := eval[string](p, "the stored choice", `localStorage.getItem('klondike.lang') || ''`); got != "ar" {
		t.Errorf("localStorage klondike.lang = %q after the switch, want ar", got)
	}
	p.checkArabicSizes("the lobby after the switch", "switch-lobby", nil, maya)

	// Remembered after a reload.
	p.navigate("/")
	p.waitWelcomed()
	p.waitShown("the lobby after the reload", "#play-title")
	p.checkArabic("the lobby after a reload", maya)
	if got := eval[string](p, "the switch's value", `document.getElementById('lang-switch').value`); got != "ar" {
		t.Errorf("the switch shows %q after the reload, want ar", got)
	}

	// In a game: the board's words change, the game goes on.
	p.navigate("/deal/1?draw=3")
	p.waitShown("the offer", "#offer-title")
	p.click("play it solo", "#deal-solo")
	p.waitShown("the board", card("T6", "AH"))
	p.dblclick("AH up", card("T6", "AH"))
	p.waitShown("AH up", card("FH", "AH"))
	p.setValue("#lang-switch", "en")
	p.waitJS("left to right", `document.documentElement.dir === 'ltr' && document.documentElement.lang === 'en'`)
	p.waitShown("the board in English", "#resign")
	if got := p.textOf("#resign"); got != "Resign" {
		t.Errorf("the board's Resign reads %q in English", got)
	}
	p.setValue("#lang-switch", "ar")
	p.waitJS("right to left", `document.documentElement.dir === 'rtl'`)
	p.waitJS("the board in Arabic", `document.getElementById('resign') && document.getElementById('resign').textContent !== 'Resign'`)
	p.checkArabic("the board after switching twice", maya)
	if moves := eval[int](p, "the moves", `window.klondike.state.round.view.moves`); moves != 1 || !p.shown(card("FH", "AH")) {
		t.Errorf("after switching twice the game shows %d moves (want 1) and AH up = %v", moves, p.shown(card("FH", "AH")))
	}

	// Back to English: the stored choice follows.
	p.setValue("#lang-switch", "en")
	p.waitJS("left to right", `document.documentElement.dir === 'ltr'`)
	p.navigate("/")
	p.waitWelcomed()
	if got := eval[string](p, "the language after a reload", `document.documentElement.lang + ' ' + document.documentElement.dir + ' ' + localStorage.getItem('klondike.lang')`); got != "en ltr en" {
		t.Errorf("after choosing English and a reload: %q, want en ltr en", got)
	}

	// A link that asks for Arabic.
	q := b.newPage("rami", base)
	q.enterName("/?lang=ar", "رامي")
	q.waitShown("the lobby", "#play-title")
	q.checkArabic("the lobby of a ?lang=ar link", "رامي")
	if got := eval[string](q, "the stored choice", `localStorage.getItem('klondike.lang') || ''`); got != "ar" {
		t.Errorf("a ?lang=ar link stored %q, want ar", got)
	}
}

// TestArabicPlurals: the Arabic catalogue's counted sentences have the six
// forms Intl.PluralRules('ar') names, and the client's plural() picks the
// right one: for 0, 1, 2, 3, 11 and 100 the categories are zero, one,
// two, few, many and other, and each count's sentence is that category's
// form, with the count, six different sentences.
func TestArabicPlurals(t *testing.T) {
	t.Parallel()
	base := startServer(t)
	b := newBrowser(t)
	p := b.newArabicPage("salma", base)
	p.navigate("/")
	p.waitShown("the name screen", "#name-input")

	counts := []int{0, 1, 2, 3, 11, 100}
	want := []string{"zero", "one", "two", "few", "many", "other"}
	cats := eval[[]string](p, "the categories", fmt.Sprintf(`%s.map((n) => new Intl.PluralRules('ar').select(n))`, jsJSON(counts)))
	if fmt.Sprint(cats) != fmt.Sprint(want) {
		t.Fatalf("Intl.PluralRules('ar') gives %v for %v, want %v", cats, counts, want)
	}
	for i, n := range counts {
		if c := arCategory(n); c != want[i] {
			t.Fatalf("arCategory(%d) = %s, want %s", n, c, want[i])
		}
	}
	if lang := eval[string](p, "the client's language", fmt.Sprintf(`import('/static/%s/js/i18n.js').then((m) => m.language())`, web.Version())); lang != "ar" {
		t.Fatalf("the client's language is %q, want ar", lang)
	}
	for _, tc := range []struct {
		key    string
		params map[string]string
	}{
		{"async.players", nil},                              // players on a daily or challenge board
		{"ladder.count", nil},                               // players on a ladder
		{"room.watching", nil},                              // spectators of a match
		{"replay.moves", nil},                               // moves of a replay
		{"profile.days", nil},                               // a streak
		{"board.stock", nil},                                // cards in the stock
		{"settings.d.rounds", nil},                          // rounds of a match
		{"game.starts_in", map[string]string{"round": "2"}}, // seconds of the countdown
	} {
		got := eval[[]string](p, "plural "+tc.key, fmt.Sprintf(`import('/static/%s/js/i18n.js').then((m) => %s.map((n) => m.plural(%s, n, %s)))`,
			web.Version(), jsJSON(counts), jsString(tc.key), jsJSON(tc.params)))
		if len(got) != len(counts) {
			t.Fatalf("%s: %d sentences for %d counts", tc.key, len(got), len(counts))
		}
		seen := map[string]int{}
		for i, n := range counts {
			if w := p.arForm(tc.key, n, tc.params); got[i] != w {
				t.Errorf("plural(%q, %d) = %q, want the %s form %q", tc.key, n, got[i], want[i], w)
			}
			if j, dup := seen[got[i]]; dup {
				t.Errorf("plural(%q, %d) = plural(%q, %d) = %q", tc.key, n, tc.key, counts[j], got[i])
			}
			seen[got[i]] = i
			if latinRE.MatchString(got[i]) {
				t.Errorf("plural(%q, %d) = %q has Latin letters", tc.key, n, got[i])
			}
		}
		forms := eval[map[string]string](p, "the forms of "+tc.key, fmt.Sprintf(`import('/static/%s/js/lang/ar.js').then((m) => m.default[%s])`, web.Version(), jsString(tc.key)))
		for _, c := range want {
			if forms[c] == "" {
				t.Errorf("%s lacks its %s form in ar.js", tc.key, c)
			}
		}
		// zero, one and two are words of their own, not "{n} …".
		for _, c := range want[:3] {
			if strings.Contains(forms[c], "{n}") {
				t.Errorf("%s's %s form %q writes the count as a number", tc.key, c, forms[c])
			}
		}
		t.Logf("%s: %q", tc.key, got)
	}

	// As the page shows it: the countdown of a match counts its seconds
	// down through few (3-10), two and one.
	p.enterName("/", salma)
	p.setValue("#set-max_players", "1")
	p.setValue("#set-countdown_s", "4")
	p.click("create", "#create-submit")
	p.waitShown("Start", "#start-match")
	eval[bool](p, "watch the countdown", `(() => {
		window.countdownTexts = [];
		const look = () => {
			const c = document.getElementById('countdown');
			const t = c && !c.hidden ? c.textContent : '';
			if (t && window.countdownTexts[window.countdownTexts.length - 1] !== t) window.countdownTexts.push(t);
		};
		new MutationObserver(look).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
		return true;
	})()`)
	p.click("start", "#start-match")
	p.waitBoardOrResults()
	p.waitJS("the countdown over", `!document.getElementById('countdown') || document.getElementById('countdown').hidden`)
	texts := eval[[]string](p, "the countdown's texts", `window.countdownTexts`)
	form := func(n int) string { return p.arForm("game.starts_in", n, map[string]string{"round": "1"}) }
	if !contains(texts, form(3)) && !contains(texts, form(4)) {
		t.Errorf("the countdown never read %q or %q (few); it read %q", form(4), form(3), texts)
	}
	for _, n := range []int{2, 1} {
		if w := form(n); !contains(texts, w) {
			t.Errorf("the countdown never read %q (%s); it read %q", w, arCategory(n), texts)
		}
	}
}
