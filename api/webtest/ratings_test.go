package webtest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"klondike/api/servertest"
	"klondike/lobby"
	"klondike/lobby/memstore"
	"klondike/lobby/rating"
	"klondike/match"
)

// Ratings (issue 37): quick match is rated unless the player unticks it,
// ratings show beside the names of a rated match's players, the results
// say what the round did to each rating, and the profile and the ladder
// show the ratings kept.

// minus is the sign a fall in rating is written with (U+2212), not a hyphen.
const minus = "\u2212"

// shortQuickMatch makes the page's quick_match requests ask for a short
// round (timeLimit seconds, a countdown of one): the test then ends a round
// by letting its clock run out, with no way to make it shorter through the
// lobby's controls. It records each request's settings as window.sentQuick.
func (p *page) shortQuickMatch(timeLimit int) {
	p.t.Helper()
	eval[bool](p, "shorten quick matches", fmt.Sprintf(`(() => {
		const c = window.klondike.state.conn;
		const send = c.request.bind(c);
		window.sentQuick = [];
		c.request = (type, body, ...rest) => {
			if (type === 'quick_match') {
				window.sentQuick.push(JSON.parse(JSON.stringify(body.settings)));
				body = { ...body, settings: { ...body.settings, time_limit_s: %d, countdown_s: 1 } };
			}
			return send(type, body, ...rest);
		};
		return true;
	})()`, timeLimit))
}

// watchRatingNote records each text the results' line of ratings shows
// (window.ratingNotes), as it changes: the line says "Rating…" for the
// moment between round_over and the ratings' push, which a poll could miss.
func (p *page) watchRatingNote() {
	p.t.Helper()
	eval[bool](p, "watch the rating line", fmt.Sprintf(`(() => {
		const shown = %s;
		window.ratingNotes = [];
		const look = () => {
			const n = document.getElementById('rating-note');
			if (!n) return;
			const t = n.textContent + (shown(n) ? '' : ' (unseen)');
			if (window.ratingNotes[window.ratingNotes.length - 1] !== t) window.ratingNotes.push(t);
		};
		new MutationObserver(look).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
		return true;
	})()`, shownJS))
}

// sizes are the two screen sizes every check runs at.
var sizes = []struct {
	w, h   int64
	scale  float64
	suffix string
}{{desktopW, desktopH, 1, ""}, {phoneW, phoneH, 2, "-phone"}}

// TestRatedQuickMatch: two new players meet in a rated quick match (the
// lobby's default), see each other's provisional rating "1500?" in the
// waiting room, play a round that one resigns and the other's clock ends,
// and on the results see "Rating…", then the winner's rise ("+") and the
// loser's fall ("−"), at both screen sizes.
func TestRatedQuickMatch(t *testing.T) {
	t.Parallel()
	// The quick match waits a minute for more players: the host starts it
	// once the test has looked at the room.
	base := startServerConfig(t, servertest.Config{Match: match.Config{QuickWait: time.Minute}})
	b := newBrowser(t)
	ana := b.newPage("ana", base)
	ben := b.newPage("ben", base)
	ana.enterName("/", "Ana")
	ben.enterName("/", "Ben")

	// The lobby: quick match rated by default; the create form's Rated off,
	// and off with a note while a deal number is given.
	ana.wantShown("the lobby", map[string]bool{"#quick-rated": true, "#set-rated": true, "#set-rated-note": true})
	boxes := func() []bool {
		return eval[[]bool](ana, "the Rated boxes", `['quick-rated', 'set-rated'].flatMap((id) => { const e = document.getElementById(id); return [e.checked, e.disabled]; })`)
	}
	if got := boxes(); fmt.Sprint(got) != "[true false false false]" {
		t.Errorf("Rated boxes (quick checked, disabled; create checked, disabled) = %v, want [true false false false]", got)
	}
	ana.click("tick Rated in the create form", "#set-rated")
	ana.setValue("#set-seed", "7")
	if got := boxes(); fmt.Sprint(got) != "[true false false true]" {
		t.Errorf("with a deal number, Rated boxes = %v, want the create form's off and disabled", got)
	}
	if got := ana.textOf("#set-rated-note"); !strings.Contains(got, "cannot be rated") {
		t.Errorf("the note under Rated with a deal number: %q", got)
	}
	eval[bool](ana, "show Rated", `(() => { document.getElementById('set-rated').scrollIntoView({ block: 'center' }); return true; })()`)
	ana.screenshotTo("rated-create-seed")
	ana.setValue("#set-seed", "")
	if got := boxes(); fmt.Sprint(got) != "[true false true false]" {
		t.Errorf("without the deal number again, Rated boxes = %v, want the create form's ticked again", got)
	}
	if href := eval[string](ana, "the ladder link", `document.getElementById('lobby-ladder').getAttribute('href')`); href != "/ladder/klondike/3" {
		t.Errorf("the lobby's ladder link goes to %q", href)
	}

	for _, size := range sizes {
		ana.viewport(size.w, size.h, size.scale)
		eval[bool](ana, "scroll to the top", `(() => { window.scrollTo(0, 0); return true; })()`)
		ana.wantShown("the quick match's controls", map[string]bool{"#quick-rated": true, "#quick-match": true, "#lobby-ladder": true})
		if out := ana.outside("", "#quick-rated, #quick-match, #lobby-ladder, #set-rated, #set-rated-note"); len(out) > 0 {
			t.Errorf("%dpx: the lobby's rated controls leave the screen: %v", size.w, out)
		}
		ana.screenshotTo("rated-lobby" + size.suffix)
	}
	ana.viewport(desktopW, desktopH, 1)

	// The quick match: Ana first, so she hosts it; Ben sees it listed, rated,
	// with her rating, before he asks for a quick match too.
	ana.shortQuickMatch(12)
	ben.shortQuickMatch(12)
	ana.click("quick match", "#quick-match")
	ana.waitText("Ana's room", "#room-title", "Match ")
	code := eval[string](ana, "code", `window.klondike.state.match.code`)
	listed := fmt.Sprintf(`#open-matches li[data-code="%s"]`, code)
	ben.waitText("Ana's rating in the lobby's list", listed+` .rated-player[data-player="Ana"] .rating`, "1500?")
	ben.wantShown("the rated match listed", map[string]bool{listed + " .badge.rated": true, listed + ` .rated-player[data-player="Ana"] .rating`: true})
	ben.screenshotTo("rated-open-list")
	ben.click("quick match", "#quick-match")
	ben.waitText("Ben's room", "#room-title", "Match ")
	if c1, c2 := eval[string](ana, "code", `window.klondike.state.match.code`), eval[string](ben, "code", `window.klondike.state.match.code`); c1 != c2 {
		t.Fatalf("the rated quick match put them apart: %s and %s", c1, c2)
	}
	if sent := eval[string](ana, "what quick match asked", `JSON.stringify(window.sentQuick)`); strings.Contains(sent, "rated") {
		t.Errorf("a rated quick match asks for no rated field (the server's default): sent %s", sent)
	}
	for _, p := range []*page{ana, ben} {
		for _, who := range []string{"Ana", "Ben"} {
			sel := fmt.Sprintf(`#players li[data-player="%s"] .rating`, who)
			p.waitText(who+"'s rating", sel, "1500?")
			p.waitShown(who+"'s rating seen", sel)
			if title := eval[string](p, "the rating's tooltip", fmt.Sprintf(`document.querySelector(%s).title`, jsString(sel))); title != "provisional: fewer rated games" {
				t.Errorf("%s: %s's rating's tooltip: %q", p.name, who, title)
			}
		}
		if got := p.textOf("#room-title + p"); !strings.Contains(got, "rated") {
			t.Errorf("%s: the room's settings line does not say rated: %q", p.name, got)
		}
	}
	for _, size := range sizes {
		ana.viewport(size.w, size.h, size.scale)
		ana.wantShown("the room", map[string]bool{`#players li[data-player="Ana"] .rating`: true, `#players li[data-player="Ben"] .rating`: true})
		if out := ana.outside("", "#players li, #players .rating"); len(out) > 0 {
			t.Errorf("%dpx: the players' list leaves the screen: %v", size.w, out)
		}
		ana.screenshotTo("rated-room" + size.suffix)
	}
	ana.viewport(desktopW, desktopH, 1)

	// The round: a move each, then Ana resigns and Ben's clock runs out:
	// Ben ranks above her.
	ana.click("start", "#start-match")
	for _, p := range []*page{ana, ben} {
		p.waitFor("the board", `.board [data-slot="S"]`)
		p.watchRatingNote()
		p.waitJS("past the countdown", `!document.getElementById('countdown') || document.getElementById('countdown').hidden`)
		p.drawTo(1)
	}
	// The leaderboard beside the board names both with their ratings.
	for _, p := range []*page{ana, ben} {
		for _, who := range []string{"Ana", "Ben"} {
			p.waitText(who+" rated on the leaderboard", fmt.Sprintf(`.side #leaderboard tr[data-player="%s"] th .rating`, who), "1500?")
		}
	}
	ana.resignIfPlaying()
	for _, p := range []*page{ana, ben} {
		p.waitText("the results", "#results-title", "Round 1 results")
	}
	for _, p := range []*page{ana, ben} {
		p.waitFor("Ben's rise", `#leaderboard tr[data-player="Ben"] .rating-change.up`)
		p.waitFor("Ana's fall", `#leaderboard tr[data-player="Ana"] .rating-change.down`)
		if got := p.textOf(`#leaderboard tr[data-player="Ben"] .rating-change`); !strings.HasPrefix(got, "+") {
			t.Errorf("%s: Ben's change reads %q, want +N", p.name, got)
		}
		if got := p.textOf(`#leaderboard tr[data-player="Ana"] .rating-change`); !strings.HasPrefix(got, minus) {
			t.Errorf("%s: Ana's change reads %q, want %sN (a minus sign)", p.name, got, minus)
		}
		// Beside the names, the ratings they played the round with.
		for _, who := range []string{"Ana", "Ben"} {
			if got := p.textOf(fmt.Sprintf(`#leaderboard tr[data-player="%s"] th .rating`, who)); !strings.HasPrefix(got, "1500?") {
				t.Errorf("%s: %s's rating beside the name in the results: %q", p.name, who, got)
			}
		}
		if got := p.textOf("#rating-note"); !strings.HasPrefix(got, "Your rating is now ") {
			t.Errorf("%s: the line under the results: %q", p.name, got)
		}
		notes := eval[[]string](p, "the rating line's texts", `window.ratingNotes`)
		if len(notes) < 2 || notes[0] != "Rating…" {
			t.Errorf("%s: the rating line read %q, want \"Rating…\" first, then the change", p.name, notes)
		}
		if h := p.headers("#leaderboard"); !hasAll(h, "Rating") {
			t.Errorf("%s: the results' headers %q lack Rating", p.name, h)
		}
	}
	for _, size := range sizes {
		ana.viewport(size.w, size.h, size.scale)
		eval[bool](ana, "scroll to the top", `(() => { window.scrollTo(0, 0); return true; })()`)
		ana.wantShown("the results", map[string]bool{
			`#leaderboard tr[data-player="Ben"] .rating-change`: true, `#leaderboard tr[data-player="Ana"] .rating-change`: true, "#rating-note": true,
		})
		if out := ana.outside("", "#leaderboard, #leaderboard th, #leaderboard td, #rating-note"); len(out) > 0 {
			t.Errorf("%dpx: the results leave the screen: %v", size.w, out)
		}
		ana.screenshotTo("rated-results" + size.suffix)
	}

	// Ana's profile has her new rating, provisional, with a one-point chart.
	ana.viewport(desktopW, desktopH, 1)
	ana.navigate("/p/" + ana.me())
	ana.waitShown("the rating", `.rating-card[data-key="klondike/3"] .fig-rating .rating`)
	if got := ana.textOf(`.rating-card[data-key="klondike/3"] .fig-rating .rating`); !strings.Contains(got, "?") {
		t.Errorf("Ana's rating after one round: %q, want provisional (\"?\")", got)
	}
	if n := eval[int](ana, "the chart's points", `document.querySelector('.rating-card[data-key="klondike/3"] svg polyline').points.numberOfItems`); n != 1 {
		t.Errorf("the chart after one rated round has %d points, want 1", n)
	}
}

// TestRatedMatchUnrated: a match made rated in the create form, whose
// round no one plays a move of, says on its results that it rated nobody,
// and why.
func TestRatedMatchUnrated(t *testing.T) {
	t.Parallel()
	base := startServer(t)
	b := newBrowser(t)
	dan := b.newPage("dan", base)
	eve := b.newPage("eve", base)
	dan.enterName("/", "Dan")
	dan.setValue("#set-time_limit_s", "2")
	dan.setValue("#set-countdown_s", "0")
	dan.click("tick Rated", "#set-rated")
	dan.click("create", "#create-submit")
	dan.waitText("the room", "#room-title", "Match ")
	if rated := eval[bool](dan, "rated?", `!!window.klondike.state.match.settings.rated`); !rated {
		t.Fatalf("the match made with Rated ticked is not rated")
	}
	code := eval[string](dan, "code", `window.klondike.state.match.code`)
	eve.enterName("/m/"+code, "Eve")
	eve.waitText("Eve's room", "#room-title", code)
	for _, p := range []*page{dan, eve} {
		p.waitText("Dan's rating", `#players li[data-player="Dan"] .rating`, "1500?")
		p.waitText("Eve's rating", `#players li[data-player="Eve"] .rating`, "1500?")
	}
	dan.click("start", "#start-match")
	for _, p := range []*page{dan, eve} {
		p.waitText("the results", "#results-title", "Round 1 results")
		p.waitText("why no rating changed", "#rating-note", "Not rated: fewer than two players made a move")
		p.wantShown("the results", map[string]bool{"#rating-note": true, `#leaderboard tr[data-player="Eve"] .rating-change`: true})
		if got := p.textOf(`#leaderboard tr[data-player="Eve"] .rating-change`); got != "–" {
			t.Errorf("%s: Eve's change in a round that rated nobody: %q", p.name, got)
		}
	}
}

// TestCasualQuickMatch: unticking Rated asks for a casual quick match
// ("rated": false), whose room shows no ratings.
func TestCasualQuickMatch(t *testing.T) {
	t.Parallel()
	base := startServerConfig(t, servertest.Config{Match: match.Config{QuickWait: time.Minute}})
	b := newBrowser(t)
	p := b.newPage("cass", base)
	p.enterName("/", "Cass")
	p.shortQuickMatch(10)
	p.click("untick Rated", "#quick-rated")
	p.click("quick match", "#quick-match")
	p.waitText("the room", "#room-title", "Match ")
	if sent := eval[string](p, "what quick match asked", `JSON.stringify(window.sentQuick)`); !strings.Contains(sent, `"rated":false`) {
		t.Errorf("a casual quick match sent %s, want rated false", sent)
	}
	if rated := eval[bool](p, "rated?", `!!window.klondike.state.match.settings.rated`); rated {
		t.Errorf("the casual quick match is rated")
	}
	p.waitFor("the players", `#players li[data-player="Cass"]`)
	if n := eval[int](p, "ratings", `document.querySelectorAll('#players .rating').length`); n != 0 {
		t.Errorf("a casual match's room shows %d ratings", n)
	}
}

// seedLadder puts others established players on the Klondike draw 3
// ladder, rated 1300, 1305, …, in one rated round, and gives me a history
// of the ratings hist (deviations falling to established). It returns my
// place: 1 and how many are rated above.
func seedLadder(t *testing.T, rs lobby.Ratings, others int, me, name string, hist []float64) int {
	t.Helper()
	above := 0
	seedOthers(t, rs, others, func(i int) (string, float64) {
		r := 1300 + 5*float64(i)
		if r > hist[len(hist)-1] {
			above++
		}
		return fmt.Sprintf("Player %03d", i+1), r
	})
	seedHistory(t, rs, me, name, hist)
	// A rating still provisional in the other draw.
	now := time.Now()
	if _, _, err := rs.Apply(context.Background(), lobby.RatedRound{
		RoundID: "seed-" + me + "-draw1", MatchID: "seed", Key: "klondike/1", At: now.Add(-time.Minute),
		Changes: []lobby.RatedPlayer{{PlayerID: me, Name: name, Place: 1, Before: rating.New(),
			After: rating.Rating{Rating: 1523, Deviation: 290, Volatility: rating.InitialVol, Rounds: 1, At: now.Add(-time.Minute)}}},
	}); err != nil {
		t.Fatal(err)
	}
	return above + 1
}

// seedOthers puts n established players on the Klondike draw 3 ladder in
// one rated round, player i named and rated as player(i) says.
func seedOthers(t *testing.T, rs lobby.Ratings, n int, player func(i int) (name string, r float64)) {
	t.Helper()
	now := time.Now()
	rr := lobby.RatedRound{RoundID: "seed-others", MatchID: "seed", Key: "klondike/3", At: now.Add(-time.Hour)}
	for i := range n {
		name, r := player(i)
		rr.Changes = append(rr.Changes, lobby.RatedPlayer{
			PlayerID: fmt.Sprintf("%016x", i+1), Name: name, Place: n - i,
			Before: rating.New(), After: rating.Rating{Rating: r, Deviation: 60, Volatility: rating.InitialVol, Rounds: 1, At: now.Add(-time.Hour)},
		})
	}
	if _, _, err := rs.Apply(context.Background(), rr); err != nil {
		t.Fatal(err)
	}
}

// seedHistory gives me (named name) a Klondike draw 3 history of the
// ratings hist, one rated round each, deviations falling to established.
func seedHistory(t *testing.T, rs lobby.Ratings, me, name string, hist []float64) {
	t.Helper()
	now := time.Now()
	before := rating.New()
	for i, r := range hist {
		after := rating.Rating{Rating: r, Deviation: 300 - float64(i)*220/float64(len(hist)-1), Volatility: rating.InitialVol,
			Rounds: i + 1, At: now.Add(time.Duration(i-len(hist)) * time.Minute)}
		if _, _, err := rs.Apply(context.Background(), lobby.RatedRound{
			RoundID: fmt.Sprintf("seed-%s-%d", me, i), MatchID: "seed", Key: "klondike/3", At: after.At,
			Changes: []lobby.RatedPlayer{{PlayerID: me, Name: name, Place: 1, Before: before, After: after}},
		}); err != nil {
			t.Fatal(err)
		}
		before = after
	}
}

// TestRatingsProfileAndLadder: a player with a rating history sees it on
// their profile (the rating, its rounds, the ladder place, and the chart,
// whose line has a point a rated round), a provisional rating with its
// "?", and the ladder: the first hundred, their place among their
// neighbours, the next page, another game's empty ladder; and the ladder
// from its address with no player.
func TestRatingsProfileAndLadder(t *testing.T) {
	t.Parallel()
	rs := memstore.NewRatings()
	base := startServerConfig(t, servertest.Config{Ratings: rs})
	b := newBrowser(t)
	p := b.newPage("cleo", base)
	p.enterName("/", "Cleo")
	me := p.me()
	hist := []float64{1540, 1521, 1580, 1563, 1600, 1612}
	const others = 130
	place := seedLadder(t, rs, others, me, "Cleo", hist)

	// The profile.
	p.click("my profile", "#lobby-profile")
	card := `.rating-card[data-key="klondike/3"]`
	p.waitShown("the rating", card+" .fig-rating .rating")
	for sel, want := range map[string]string{
		card + " h3":                             "Klondike · Draw 3",
		card + " .fig-rating dd":                 "1612",
		card + " .fig-rounds dd":                 "6",
		card + " .fig-place dd":                  ordinalOf(place),
		card + " svg .label.max":                 "1612",
		card + " svg .label.min":                 "1521",
		`.rating-card[data-key="klondike/1"] h3`: "Klondike · Draw 1",
	} {
		if got := strings.TrimSpace(eval[string](p, "the text of "+sel, fmt.Sprintf(`document.querySelector(%s).textContent`, jsString(sel)))); got != want {
			t.Errorf("%s reads %q, want %q", sel, got, want)
		}
	}
	if got := p.textOf(`.rating-card[data-key="klondike/1"] .fig-rating .rating`); !strings.HasPrefix(got, "1523?") {
		t.Errorf("the provisional rating reads %q, want 1523?", got)
	}
	chart := card + " svg.rating-chart"
	if n := eval[int](p, "the chart's points", fmt.Sprintf(`document.querySelector(%s).querySelector('polyline').points.numberOfItems`, jsString(chart))); n != len(hist) {
		t.Errorf("the chart's line has %d points, want %d (one a rated round)", n, len(hist))
	}
	if role := eval[string](p, "the chart's role", fmt.Sprintf(`document.querySelector(%s).getAttribute('role')`, jsString(chart))); role != "img" {
		t.Errorf("the chart's role is %q", role)
	}
	if label := eval[string](p, "the chart's label", fmt.Sprintf(`document.querySelector(%s).getAttribute('aria-label')`, jsString(chart))); !strings.Contains(label, "6 rated rounds") || !strings.Contains(label, "1521") || !strings.Contains(label, "1612") {
		t.Errorf("the chart's label says %q", label)
	}
	for _, size := range sizes {
		p.viewport(size.w, size.h, size.scale)
		eval[bool](p, "show the ratings", `(() => { document.getElementById('profile-ratings-title').scrollIntoView({ block: 'start' }); return true; })()`)
		p.wantShown("the ratings", map[string]bool{chart: true, chart + " .label.max": true, chart + " .label.min": true, card + " .ladder-link": true})
		if c := p.boxOf(chart); c.H < 40 || c.W < 150 {
			t.Errorf("%dpx: the chart is %.0f×%.0f px", size.w, c.W, c.H)
		}
		if out := p.outside("", ".rating-card, .rating-chart"); len(out) > 0 {
			t.Errorf("%dpx: the ratings leave the screen: %v", size.w, out)
		}
		p.screenshotTo("profile-ratings" + size.suffix)
	}
	p.viewport(desktopW, desktopH, 1)

	// The ladder, from the profile's link.
	p.click("the ladder", card+" .ladder-link")
	p.waitText("the ladder", "#ladder-lead", "Klondike · Draw 3")
	p.waitFor("the first page", "#ladder-table tbody tr")
	if path := eval[string](p, "the address", `location.pathname`); path != "/ladder/klondike/3" {
		t.Errorf("the ladder's address is %q", path)
	}
	if n := eval[int](p, "rows", `document.querySelectorAll('#ladder-table tbody tr').length`); n != 100 {
		t.Errorf("the first page has %d rows, want 100", n)
	}
	if got := p.textOf("#ladder-table tbody tr:first-child"); !strings.Contains(got, fmt.Sprintf("Player %03d", others)) || !strings.Contains(got, fmt.Sprint(1300+5*(others-1))) {
		t.Errorf("the ladder's first row: %q", got)
	}
	p.waitText("my place", "#ladder-my-place", fmt.Sprintf("You are %s of %d.", ordinalOf(place), others+1))
	p.wantShown("the ladder", map[string]bool{"#ladder-mine": true, "#ladder-around tr.me": true, "#ladder-next": true, "#ladder-prev": false})
	if got := p.textOf("#ladder-around tr.me"); !strings.Contains(got, "Cleo") || !strings.Contains(got, "1612") {
		t.Errorf("my row among my neighbours: %q", got)
	}
	if n := eval[int](p, "neighbours", `document.querySelectorAll('#ladder-around tbody tr').length`); n != 11 {
		t.Errorf("%d rows around my place, want 11 (5 above, 5 below)", n)
	}
	for _, size := range sizes {
		p.viewport(size.w, size.h, size.scale)
		eval[bool](p, "scroll to the top", `(() => { window.scrollTo(0, 0); return true; })()`)
		if out := p.outside("", "#ladder-table, #ladder-around, .ladder-choice select, #ladder-mine"); len(out) > 0 {
			t.Errorf("%dpx: the ladder leaves the screen: %v", size.w, out)
		}
		p.screenshotTo("ladder" + size.suffix)
	}
	p.viewport(desktopW, desktopH, 1)
	p.click("next", "#ladder-next")
	p.waitText("the second page", "#ladder-table caption", fmt.Sprintf("Places 101–%d", others+1))
	p.wantShown("the second page", map[string]bool{"#ladder-next": false, "#ladder-prev": true})
	p.click("previous", "#ladder-prev")
	p.waitText("the first page again", "#ladder-table caption", "Places 1–100")

	// Another game: Whitehead draws one card only, and no one is on its ladder.
	p.setValue("#ladder-game", "whitehead")
	p.waitText("the empty ladder", "#ladder-count", "No one is on this ladder yet")
	if got := eval[string](p, "the draw", `[document.getElementById('ladder-draw').value, document.getElementById('ladder-draw').disabled, location.pathname].join(' ')`); got != "1 true /ladder/whitehead/1" {
		t.Errorf("Whitehead's ladder: draw, disabled, address = %q", got)
	}

	// From its address, in a browser with no player yet.
	q := b.newPage("quinn", base)
	q.navigate("/ladder/klondike/3")
	q.waitFor("the first page", "#ladder-table tbody tr")
	q.wantShown("the ladder with no player", map[string]bool{"#ladder-table": true, "#ladder-mine": false, "#ladder-back": true})
}

// ordinalOf writes n as the client does: 1st, 2nd, 3rd, 4th, 11th…
func ordinalOf(n int) string {
	suffix := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return fmt.Sprintf("%d%s", n, suffix)
}
