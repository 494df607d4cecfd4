package webtest

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"klondike/api/web"
	"klondike/engine"
)

// The games other than Klondike on the board: Double Klondike's nine piles
// and eight foundations at 1280×800 and on a phone, Whitehead's face-up
// tableau and base rank, moves onto an empty pile of any card in Thumb and
// Pouch and Whitehead, and redo.

// practice starts a solo practice round of game on deal seed from the
// lobby's form, as a player would: the game chosen, the deal number given,
// one player, undo on.
func (p *page) practice(game, seed string) {
	p.t.Helper()
	p.setValue("#set-game", game)
	p.setValue("#set-seed", seed)
	p.setValue("#set-max_players", "1")
	p.setValue("#set-countdown_s", "0")
	p.setValue("#set-undo", "on")
	p.setValue("#set-time_limit_s", "3600")
	p.click("create", "#create-submit")
	p.waitText("the waiting room", "#room-title", "Match ")
	p.click("start", "#start-match")
	p.waitFor("the board", `.board [data-slot="T1"]`)
}

// recordMoves records the moves the page sends from now on in
// window.sentMoves.
func (p *page) recordMoves() {
	p.t.Helper()
	eval[bool](p, "record the moves sent", `(() => {
		const c = window.klondike.state.conn;
		window.sentMoves = [];
		if (!c.__recording) {
			const send = c.send.bind(c);
			c.send = (type, body) => { if (type === 'move') window.sentMoves.push(body.move); return send(type, body); };
			c.__recording = true;
		}
		return true;
	})()`)
}

// doubleMoves finds a Double Klondike deal whose opening allows a move
// between piles that involves pile 8 or 9, after which another such move
// (or one of those piles' top card going up) is legal: the moves the test
// makes by drag and by tapping.
func doubleMoves(t *testing.T) (seed uint64, first, second engine.Move) {
	t.Helper()
	rules := engine.DefaultRulesFor(engine.DoubleKlondike)
	high := func(m engine.Move) bool {
		switch m.Kind {
		case engine.TableauToTableau:
			return m.From >= 8 || m.To >= 8
		case engine.TableauToFoundation:
			return m.From >= 8
		}
		return false
	}
	for seed = 1; seed < 2000; seed++ {
		g, err := engine.NewGame(engine.NumberedDouble(seed), rules)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range g.LegalMoves(nil) {
			if !high(a) || a.Kind != engine.TableauToTableau {
				continue
			}
			c := g.Clone()
			if _, err := c.Apply(a); err != nil {
				t.Fatal(err)
			}
			for _, b := range c.LegalMoves(nil) {
				if high(b) && b != a && !(b.Kind == engine.TableauToTableau && b.From == a.To && b.To == a.From) {
					return seed, a, b
				}
			}
		}
	}
	t.Fatal("no Double Klondike deal below #2000 opens with two moves of piles 8 and 9")
	return
}

// topCardOf returns the selector of pile n's top face-up card in the view
// the Go engine gives of g.
func topCardOf(g *engine.Game, n int) string {
	_, up := g.Pile(n)
	return card(fmt.Sprintf("T%d", n), up[len(up)-1].String())
}

// runCardOf returns the selector of the card of the source pile that heads
// the cards move m carries.
func runCardOf(g *engine.Game, m engine.Move) string {
	c := g.Clone()
	down, up := c.Pile(int(m.From))
	before := down + len(up)
	if _, err := c.Apply(m); err != nil {
		panic(err)
	}
	down, after := c.Pile(int(m.From))
	k := before - down - len(after)
	return card(fmt.Sprintf("T%d", m.From), up[len(up)-k].String())
}

// tapCard clicks a card where a person would, on the strip of it that the
// card above leaves showing (a click at its centre could reach that card).
func (p *page) tapCard(what, css string) {
	p.t.Helper()
	c := p.boxOf(css)
	p.do(what, chromedp.MouseClickXY(c.X+c.W/2, c.Y+6))
}

// dragCard drags a card, held by its showing strip, onto the element
// matched by to.
func (p *page) dragCard(what, css, to string) {
	p.t.Helper()
	c, d := p.boxOf(css), p.boxOf(to)
	p.do(what, chromedp.DragAndDropXY(c.X+c.W/2, c.Y+6, d.X+d.W/2, d.Y+d.H/2))
}

// tableauOf reads the tableau of the page's view.
func (p *page) tableauOf() []engine.PileView {
	p.t.Helper()
	raw := eval[string](p, "the view", `JSON.stringify(window.klondike.state.round.view.tableau)`)
	var piles []engine.PileView
	if err := json.Unmarshal([]byte(raw), &piles); err != nil {
		p.t.Fatal(err)
	}
	return piles
}

// goTableau is the tableau of the Go engine's view of g.
func goTableau(g *engine.Game) []engine.PileView {
	v := g.View(0)
	out := append([]engine.PileView{}, v.Tableau[:]...)
	return append(out, v.MorePiles...)
}

// layoutProblems lists what a person would see wrong with a Double
// Klondike board in a w×h viewport: a pile or a foundation missing, not
// wholly on the screen, or on top of another; the page wider than the
// screen.
func (p *page) layoutProblems(w, h int) []string {
	p.t.Helper()
	return eval[[]string](p, "the board's layout", fmt.Sprintf(`(() => {
		const shown = %s;
		const bad = [];
		const piles = [...document.querySelectorAll('.board [data-slot^="T"]')];
		const founds = [...document.querySelectorAll('.board [data-drop="F"]')];
		if (piles.length !== 9) bad.push(piles.length + ' piles');
		if (founds.length !== 8) bad.push(founds.length + ' foundations');
		const slots = [...piles, ...founds, document.querySelector('.board [data-slot="S"]'), document.querySelector('.board [data-slot="W"]')];
		const boxes = slots.map((e) => [e.dataset.slot, e.getBoundingClientRect(), shown(e)]);
		for (const [name, r, seen] of boxes) {
			if (!seen) bad.push(name + ' not shown');
			if (r.left < -0.5 || r.top < -0.5 || r.right > %d + 0.5 || r.bottom > %d + 0.5) {
				bad.push(name + ' at ' + [r.left, r.top, r.right, r.bottom].map((x) => x.toFixed(0)).join(',') + ' outside the screen');
			}
		}
		for (let i = 0; i < boxes.length; i++) {
			for (let j = i + 1; j < boxes.length; j++) {
				const a = boxes[i][1], b = boxes[j][1];
				if (a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5) bad.push(boxes[i][0] + ' overlaps ' + boxes[j][0]);
			}
		}
		// Each foundation's suit mark, and every face-up card's corner, is
		// what a person sees at that place.
		for (const f of founds) {
			const r = f.getBoundingClientRect();
			const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
			if (!hit || !f.contains(hit)) bad.push(f.dataset.slot + ' covered');
		}
		const sw = document.documentElement.scrollWidth;
		if (sw > %[2]d) bad.push('the page is ' + sw + ' px wide');
		return bad;
	})()`, shownJS, w, h))
}

// TestDoubleKlondikeBoard: a Double Klondike practice round at 1280×800 and
// on a 390×844 phone shows its nine piles and eight foundations, each on
// the screen and none over another, with the game's rules above and no
// Hint (the solver does not play it); a card
// dragged from pile 9 (or onto it) is sent as T9 and tapping plays the next
// move; both boards are what the Go engine makes of those moves.
func TestDoubleKlondikeBoard(t *testing.T) {
	t.Parallel()
	seed, first, second := doubleMoves(t)
	base := startServer(t)
	b := newBrowser(t)
	p := b.newPage("dora", base)
	p.viewport(desktopW, desktopH, 1)
	p.enterName("/", "Dora")
	p.waitShown("the game's rules", "#set-game-summary")
	p.setValue("#set-game", "double_klondike")
	if got := p.textOf("#set-game-summary"); !strings.Contains(got, "nine piles") {
		t.Errorf("the form's line of rules for Double Klondike: %q", got)
	}
	// The server's solver does not play Double Klondike: any deal, no hints.
	if d := eval[string](p, "the deals", `document.getElementById('set-deals').value + ' ' + document.getElementById('set-deals').disabled`); d != "any true" {
		t.Errorf("Double Klondike's deals in the form: %q, want any, fixed", d)
	}
	p.practice("double_klondike", fmt.Sprint(seed))
	p.recordMoves()
	if rules := eval[string](p, "the rules", `window.klondike.state.round.rules.game || ''`); rules != "double_klondike" {
		t.Fatalf("the round's game is %q", rules)
	}

	g, _ := engine.NewGame(engine.NumberedDouble(seed), engine.DefaultRulesFor(engine.DoubleKlondike))
	for _, size := range []struct {
		w, h  int64
		scale float64
		name  string
	}{{desktopW, desktopH, 1, "desktop"}, {phoneW, phoneH, 2, "phone"}} {
		p.viewport(size.w, size.h, size.scale)
		eval[bool](p, "scroll to the top", `(() => { window.scrollTo(0, 0); document.activeElement && document.activeElement.blur(); return true; })()`)
		if bad := p.layoutProblems(int(size.w), int(size.h)); len(bad) > 0 {
			t.Errorf("%s: %q", size.name, bad)
		}
		p.wantShown(size.name, map[string]bool{"#rules-summary": true, "#undo": true, "#redo": true, "#hint": false})
		if got := p.textOf("#rules-summary"); !strings.Contains(got, "Double Klondike") || !strings.Contains(got, "eight foundations") {
			t.Errorf("%s: the line of rules above the board: %q", size.name, got)
		}
		cw := eval[float64](p, "card width", `document.querySelector('.board [data-slot="T1"]').getBoundingClientRect().width`)
		t.Logf("%s: cards %.1f px wide", size.name, cw)
	}

	// Desktop: the first move by drag.
	p.viewport(desktopW, desktopH, 1)
	p.dragCard(first.String(), runCardOf(g, first), topCardOf(g, int(first.To)))
	if _, err := g.Apply(first); err != nil {
		t.Fatal(err)
	}
	p.waitJS("the drag answered", `window.klondike.state.round.view.moves === 1`)
	if got, want := p.tableauOf(), goTableau(g); !reflect.DeepEqual(got, want) {
		t.Errorf("after %v: the board shows %v, the engine %v", first, got, want)
	}

	// The phone: the second by tapping the card, then where it goes.
	p.viewport(phoneW, phoneH, 2)
	if second.Kind == engine.TableauToFoundation {
		p.tapCard("choose "+second.String(), topCardOf(g, int(second.From)))
		p.click("to its foundation", `.board [data-drop="F"]`)
	} else {
		p.tapCard("choose "+second.String(), runCardOf(g, second))
		p.click("place it", fmt.Sprintf(`.board [data-slot="T%d"]`, second.To))
	}
	if _, err := g.Apply(second); err != nil {
		t.Fatal(err)
	}
	p.waitJS("the tap answered", `window.klondike.state.round.view.moves === 2`)
	if got, want := p.tableauOf(), goTableau(g); !reflect.DeepEqual(got, want) {
		t.Errorf("after %v: the board shows %v, the engine %v", second, got, want)
	}
	sent := eval[[]string](p, "the moves sent", `window.sentMoves`)
	if len(sent) != 2 || !strings.Contains(sent[0]+sent[1], "T8") && !strings.Contains(sent[0]+sent[1], "T9") {
		t.Errorf("sent %q for %v and %v", sent, first, second)
	}
	if bad := p.layoutProblems(phoneW, phoneH); len(bad) > 0 {
		t.Errorf("phone after two moves: %q", bad)
	}
	// The waste fan of draw 3 reads at both sizes.
	p.key("draw", "d")
	p.waitJS("drawn", `window.klondike.state.round.view.waste.length === 3`)
	if bad := p.fanLegible(); len(bad) > 0 {
		t.Errorf("phone: covered corners in the waste fan: %q", bad)
	}
	p.viewport(desktopW, desktopH, 1)
	if bad := p.fanLegible(); len(bad) > 0 {
		t.Errorf("desktop: covered corners in the waste fan: %q", bad)
	}
	p.checkReplay("double_klondike", 9)
}

// checkReplay resigns the page's game and opens the round's replay: the
// browser's engine replays the moves to the server's result on a board of
// piles piles, and "Play this deal again" keeps the game.
func (p *page) checkReplay(game string, piles int) {
	p.t.Helper()
	p.viewport(desktopW, desktopH, 1)
	p.resignIfPlaying()
	p.waitText("the results", "#results-title", "Round 1 results")
	if href := eval[string](p, "play again", `document.getElementById('play-again').getAttribute('href')`); !strings.Contains(href, "game="+game) {
		p.t.Errorf("play this deal again: %q, want the game %s", href, game)
	}
	p.click("open the replay", "#open-replay")
	p.waitFor("the replay verdict", `#replay-verdict[data-state="ok"]`)
	if n := eval[int](p, "the replay's piles", `document.querySelectorAll('.replay-board [data-slot^="T"]').length`); n != piles {
		p.t.Errorf("the replay's board has %d piles, want %d", n, piles)
	}
	if out := p.outside("", ".replay-board .slot"); len(out) > 0 {
		p.t.Errorf("the replay's board is wider than the screen: %q", out)
	}
}

// TestGameScreenshots writes the screenshots of a Double Klondike board,
// double-klondike.png at 1280×800 and double-klondike-phone.png at 390×844,
// a few moves into a practice round. Like TestScreenshots it runs only when
// KLONDIKE_SCREENSHOTS names where to write them:
//
//	KLONDIKE_SCREENSHOTS=1 go test ./api/webtest -run Screenshots -count=1
func TestGameScreenshots(t *testing.T) {
	t.Parallel()
	if os.Getenv("KLONDIKE_SCREENSHOTS") == "" {
		t.Skip("KLONDIKE_SCREENSHOTS is not set")
	}
	seed, first, second := doubleMoves(t)
	base := startServer(t)
	b := newBrowser(t)
	p := b.newPage("dora", base)
	p.viewport(desktopW, desktopH, 1)
	p.enterName("/", "Dora")
	p.practice("double_klondike", fmt.Sprint(seed))
	g, _ := engine.NewGame(engine.NumberedDouble(seed), engine.DefaultRulesFor(engine.DoubleKlondike))
	moves := []engine.Move{first, second}
	for _, m := range moves {
		if _, err := g.Apply(m); err != nil {
			t.Fatal(err)
		}
	}
	// More: cards up first, then moves between piles that turn a card
	// up, then draws.
	for len(moves) < 40 && g.Status() == engine.Playing {
		pick := engine.DrawMove()
		for _, m := range g.LegalMoves(nil) {
			if m.Kind == engine.TableauToFoundation || m.Kind == engine.WasteToFoundation {
				pick = m
				break
			}
			if m.Kind == engine.TableauToTableau && pick.Kind == engine.Draw {
				if ev, _ := g.Clone().Apply(m); ev.Has(engine.Revealed) {
					pick = m
				}
			}
			if m.Kind == engine.WasteToTableau && pick.Kind == engine.Draw {
				pick = m
			}
		}
		if pick.Kind == engine.Draw && g.StockSize() == 0 {
			pick = engine.RecycleMove()
		}
		if _, err := g.Apply(pick); err != nil {
			break
		}
		moves = append(moves, pick)
	}
	for i, m := range moves {
		p.sendMove(m.String())
		p.waitJS("move answered", fmt.Sprintf(`window.klondike.state.round.view.moves === %d`, i+1))
	}
	for _, size := range []struct {
		w, h   int64
		scale  float64
		suffix string
	}{{desktopW, desktopH, 1, ""}, {phoneW, phoneH, 2, "-phone"}} {
		p.viewport(size.w, size.h, size.scale)
		eval[bool](p, "scroll to the top", `(() => { window.scrollTo(0, 0); return true; })()`)
		p.screenshot("double-klondike" + size.suffix + ".png")
	}
	t.Logf("wrote double-klondike.png and double-klondike-phone.png to %s", screenshotDir())
}

// sendMove plays a move of the notation as the board would send it.
func (p *page) sendMove(move string) {
	p.t.Helper()
	eval[bool](p, "send "+move, fmt.Sprintf(`(async () => {
		const M = await import('/static/%s/js/moves.js');
		M.sendMove(%s, {});
		return true;
	})()`, web.Version(), jsString(move)))
}

// TestWhiteheadFaceUp: a Whitehead practice round deals all 28 tableau
// cards face up, starts the foundation of the first stock card's suit with
// it, shows the rank the others start at, says so above the board, and
// plays a move as the Go engine does.
func TestWhiteheadFaceUp(t *testing.T) {
	t.Parallel()
	// The first deal whose opening has a move between piles.
	var seed uint64
	var move engine.Move
	for seed = 1; move.Kind == engine.NoMove; seed++ {
		g, _ := engine.NewGame(engine.NumberedDeal(seed), engine.DefaultRulesFor(engine.Whitehead))
		for _, m := range g.LegalMoves(nil) {
			if m.Kind == engine.TableauToTableau {
				move = m
				break
			}
		}
	}
	seed--
	deal := engine.NumberedDeal(seed)
	baseCard := deal.Stock[0]
	rank := strings.Replace(baseCard.String()[:1], "T", "10", 1)
	base := startServer(t)
	b := newBrowser(t)
	p := b.newPage("wendy", base)
	p.viewport(desktopW, desktopH, 1)
	p.enterName("/", "Wendy")
	p.setValue("#set-game", "whitehead")
	if d := eval[string](p, "the draw", `document.getElementById('set-draw').value + ' ' + document.getElementById('set-draw').disabled`); d != "1 true" {
		t.Errorf("Whitehead's draw in the form: %q, want 1, fixed", d)
	}
	p.practice("whitehead", fmt.Sprint(seed))
	p.wantShown("Whitehead's HUD", map[string]bool{"#undo": true, "#redo": true, "#hint": false, "#passes": false})

	faces := eval[int](p, "face-up cards", fmt.Sprintf(`[...document.querySelectorAll('.board [data-slot^="T"] .card')].filter((c) => c.classList.contains('face') && %s(c)).length`, shownJS))
	backs := eval[int](p, "face-down cards", `document.querySelectorAll('.board [data-slot^="T"] .card.back').length`)
	if faces != 28 || backs != 0 {
		t.Errorf("the tableau shows %d cards face up and %d face down, want 28 and 0", faces, backs)
	}
	g, _ := engine.NewGame(deal, engine.DefaultRulesFor(engine.Whitehead))
	for n := 1; n <= 7; n++ {
		_, up := g.Pile(n)
		for _, c := range up {
			if !p.shown(card(fmt.Sprintf("T%d", n), c.String())) {
				t.Errorf("%v of pile %d is not shown", c, n)
			}
		}
	}
	suit := baseCard.String()[1:]
	p.waitShown("the base card on its foundation", card("F"+suit, baseCard.String()))
	for _, s := range []string{"C", "D", "H", "S"} {
		if s == suit {
			continue
		}
		mark := p.textOf(fmt.Sprintf(`.board [data-slot="F%s"] .empty-mark`, s))
		if !strings.HasPrefix(mark, rank) {
			t.Errorf("the empty %s foundation shows %q, want it to start with the base rank %s", s, mark, rank)
		}
	}
	if got := p.textOf("#rules-summary"); !strings.Contains(got, "Whitehead") || !strings.Contains(got, "start at "+rank) {
		t.Errorf("the line of rules above the board: %q", got)
	}
	// A move between piles, by tapping, as the engine plays it.
	p.tapCard("choose "+move.String(), runCardOf(g, move))
	p.click("place it", fmt.Sprintf(`.board [data-slot="T%d"]`, move.To))
	if _, err := g.Apply(move); err != nil {
		t.Fatal(err)
	}
	p.waitJS("the move answered", `window.klondike.state.round.view.moves === 1`)
	if got, want := p.tableauOf(), goTableau(g); !reflect.DeepEqual(got, want) {
		t.Errorf("after %v: the board shows %v, the engine %v", move, got, want)
	}
	p.checkReplay("whitehead", 7)
}

// TestBoardNotationOfTheGames drives a board the page draws from made-up
// views of each game and reads the moves it makes: onto an empty pile, a
// run or any part of it in Thumb and Pouch and Whitehead (Tn:k-Tm for a
// part), a king's mark only where an empty pile takes only a king; T8 and
// T9 by the keys 8 and 9 in Double Klondike, and a card of its second
// foundation sent down only where it goes.
func TestBoardNotationOfTheGames(t *testing.T) {
	t.Parallel()
	base := startServer(t)
	b := newBrowser(t)
	p := b.newPage("nora", base)
	p.viewport(desktopW, desktopH, 1)
	p.enterName("/", "Nora")

	empty := func() map[string]any { return map[string]any{"down": 0, "up": []string{}} }
	pile := func(down int, up ...string) map[string]any { return map[string]any{"down": down, "up": up} }
	view := func(piles []map[string]any, extra map[string]any) string {
		v := map[string]any{"tableau": piles, "stock": 10, "waste": []string{}, "waste_size": 0,
			"foundations": map[string]int{"C": 0, "D": 0, "H": 0, "S": 0}, "score": 0, "moves": 0,
			"passes_used": 0, "passes_left": nil, "status": "playing", "elapsed_ms": 0}
		for k, x := range extra {
			v[k] = x
		}
		j, _ := json.Marshal(v)
		return string(j)
	}
	// show draws a board of game from view, to be clicked.
	show := func(game, v string) {
		eval[bool](p, "draw a board", fmt.Sprintf(`(async () => {
			const B = await import('/static/%s/js/board.js');
			if (window.probe) window.probe.board.destroy();
			let host = document.getElementById('probe');
			if (!host) {
				host = document.createElement('div');
				host.id = 'probe';
				host.className = 'board-host';
				document.getElementById('app').prepend(host);
			}
			const sent = [];
			const board = new B.Board(host, { interactive: true, onMove: (m) => sent.push(m), onHint: (h) => sent.push('hint: ' + h) });
			board.setView(%s, { game: %s, draw: 1 });
			window.probe = { board, sent };
			window.scrollTo(0, 0);
			return true;
		})()`, web.Version(), v, jsString(game)))
	}
	sent := func() []string { return eval[[]string](p, "the moves made", `window.probe.sent.splice(0)`) }
	probe := func(slot, c string) string {
		return fmt.Sprintf(`#probe [data-slot="%s"] .card[data-card="%s"]`, slot, c)
	}
	emptyPile := `#probe [data-slot="T2"]`

	for _, g := range []struct {
		game string
		run  []string
	}{{"thumb_and_pouch", []string{"9H", "8S", "7D"}}, {"whitehead", []string{"9H", "8H", "7H"}}, {"klondike", []string{"9H", "8S", "7D"}}} {
		piles := []map[string]any{pile(2, g.run...), empty(), pile(0, "KS"), pile(1, "4C"), pile(0, "2D"), pile(3, "QC"), pile(0, "5S")}
		show(g.game, view(piles, map[string]any{"foundation_base": map[bool]int{true: 5}[g.game == "whitehead"]}))
		if mark := p.textOf(emptyPile + " .empty-mark"); (mark == "K") != (g.game == "klondike") {
			t.Errorf("%s: the empty pile's mark %q", g.game, mark)
		}
		// The part from the 8 down, the whole run, the top card alone.
		p.tapCard("the 8", probe("T1", g.run[1]))
		p.click("the empty pile", emptyPile)
		p.tapCard("the 9", probe("T1", g.run[0]))
		p.click("the empty pile", emptyPile)
		p.tapCard("the 7", probe("T1", g.run[2]))
		p.click("the empty pile", emptyPile)
		want := []string{"T1:2-T2", "T1-T2", "T1:1-T2"}
		if g.game == "klondike" {
			// Klondike's run from the 9 is no king's: sent as counted, for
			// the server to refuse.
			want = []string{"T1:2-T2", "T1:3-T2", "T1:1-T2"}
		}
		if got := sent(); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: moves onto an empty pile %q, want %q", g.game, got, want)
		}
	}

	// Double Klondike: piles 8 and 9 by the keys; the second clubs
	// foundation's ace does not go on the 4♥, its first's 3♣ does.
	piles := []map[string]any{pile(0, "4H"), pile(1, "9C"), pile(2, "KD"), pile(3, "QS"), pile(4, "2S"), pile(5, "JH"), pile(6, "5D"), pile(7, "8D"), pile(8, "9S")}
	show("double_klondike", view(piles, map[string]any{
		"foundations":  map[string]int{"C": 3, "D": 0, "H": 0, "S": 1},
		"foundations2": map[string]int{"C": 1, "D": 0, "H": 0, "S": 0},
	}))
	if n := eval[int](p, "foundations", `document.querySelectorAll('#probe [data-drop="F"]').length`); n != 8 {
		t.Errorf("Double Klondike's board has %d foundations", n)
	}
	p.key("pile 8", "8")
	p.key("pile 9", "9")
	p.click("the second clubs foundation", `#probe [data-slot="FC2"] .card`)
	p.click("pile 1", `#probe [data-slot="T1"]`)
	p.click("the first clubs foundation", `#probe [data-slot="FC"] .card`)
	p.click("pile 1", `#probe [data-slot="T1"]`)
	got := sent()
	if len(got) != 3 || got[0] != "T8-T9" || !strings.HasPrefix(got[1], "hint: ") || got[2] != "FC-T1" {
		t.Errorf("Double Klondike's moves: %q, want T8-T9, a hint and FC-T1", got)
	}
	eval[bool](p, "put the board away", `(() => { window.probe.board.destroy(); return true; })()`)
}

// TestRedoAfterUndo: in a practice round the Redo button stands by Undo;
// after an undo it plays the move again ("Y"), and the board is as it was
// after that move; it is off once nothing is left to redo, and after a
// new move; the key Y redoes too.
func TestRedoAfterUndo(t *testing.T) {
	t.Parallel()
	base := startServer(t)
	b := newBrowser(t)
	p := b.newPage("rhea", base)
	p.viewport(desktopW, desktopH, 1)
	p.enterName("/deal/1?draw=3", "Rhea")
	p.click("play it solo", "#deal-solo")
	p.waitFor("the board", card("T6", "AH"))
	p.recordMoves()
	p.waitShown("Redo", "#redo")
	enabled := func(css string) bool {
		return eval[bool](p, css+" enabled", fmt.Sprintf(`!document.querySelector(%s).disabled`, jsString(css)))
	}
	if enabled("#redo") {
		t.Errorf("Redo is on before any undo")
	}
	viewAt := func() string {
		return eval[string](p, "the view", `(() => { const v = { ...window.klondike.state.round.view }; delete v.moves; delete v.elapsed_ms; return JSON.stringify(v); })()`)
	}

	p.dblclick("AH up", card("T6", "AH"))
	p.waitFor("AH up", card("FH", "AH"))
	after := viewAt()
	p.click("undo", "#undo")
	p.waitFor("AH back", card("T6", "AH"))
	p.waitJS("Redo on", `!document.getElementById('redo').disabled`)
	p.click("redo", "#redo")
	p.waitFor("AH up again", card("FH", "AH"))
	p.waitJS("the redo counted", `window.klondike.state.round.view.moves === 3`)
	if got := viewAt(); got != after {
		t.Errorf("after the redo the view is\n %s\nwant\n %s", got, after)
	}
	if enabled("#redo") {
		t.Errorf("Redo is on with nothing left to redo")
	}

	// The keys: U, then Y.
	p.key("undo", "u")
	p.waitFor("AH back", card("T6", "AH"))
	p.key("redo", "y")
	p.waitFor("AH up again", card("FH", "AH"))

	// A new move after an undo: nothing to redo.
	p.key("undo", "u")
	p.waitFor("AH back", card("T6", "AH"))
	p.waitJS("Redo on", `!document.getElementById('redo').disabled`)
	p.key("draw", "d")
	p.waitJS("drawn", `window.klondike.state.round.view.moves === 7`)
	if enabled("#redo") {
		t.Errorf("Redo is on after a new move")
	}
	if sent := eval[[]string](p, "the moves sent", `window.sentMoves`); !reflect.DeepEqual(sent, []string{"T6-F", "U", "Y", "U", "Y", "U", "D"}) {
		t.Errorf("moves sent %q", sent)
	}
}

// TestQuickMatchOfAGame: two players who ask for a quick match of Double
// Klondike land in the same match of that game, which deals them its nine
// piles; the lobby says what the game is before they ask, and the waiting
// room while they wait.
func TestQuickMatchOfAGame(t *testing.T) {
	t.Parallel()
	base := startServer(t)
	b := newBrowser(t)
	p1 := b.newPage("gail", base)
	p2 := b.newPage("hugo", base)
	for _, p := range []*page{p1, p2} {
		p.enterName("/", strings.ToUpper(p.name[:1])+p.name[1:])
		p.setValue("#quick-game", "double_klondike")
		if got := p.textOf("#quick-game-summary"); !strings.Contains(got, "nine piles") {
			t.Errorf("%s: the lobby's line of rules: %q", p.name, got)
		}
		p.click("quick match", "#quick-match")
		p.waitFor("in the match", "#room-title, .board, #countdown")
		if p == p1 {
			// Alone in the waiting room: the game's rules are said there.
			p.waitShown("the game's rules in the room", "#room-game")
			if got := p.textOf("#room-game"); !strings.HasPrefix(got, "Double Klondike:") {
				t.Errorf("the room's line of rules: %q", got)
			}
		}
	}
	c1 := eval[string](p1, "code", `window.klondike.state.match.code`)
	c2 := eval[string](p2, "code", `window.klondike.state.match.code`)
	if c1 != c2 {
		t.Fatalf("quick match put them apart: %s and %s", c1, c2)
	}
	if g := eval[string](p1, "the game", `window.klondike.state.match.settings.game || ''`); g != "double_klondike" {
		t.Errorf("the quick match's game is %q", g)
	}
	for _, p := range []*page{p1, p2} {
		if !p.waitBoardOrResults() {
			continue
		}
		if n := eval[int](p, "piles", `document.querySelectorAll('.board [data-slot^="T"]').length`); n != 9 {
			t.Errorf("%s: the board has %d piles", p.name, n)
		}
		p.resignIfPlaying()
	}
}

// TestChallengeOfAGame: a Thumb and Pouch challenge made from the lobby's
// form is played on that game's board, and its page names the game, its
// rules in a line, and what the records count it as.
func TestChallengeOfAGame(t *testing.T) {
	t.Parallel()
	srv := startAsyncServer(t, time.Hour)
	b := newBrowser(t)
	p := b.newPage("tess", srv.base)
	p.viewport(desktopW, desktopH, 1)
	p.enterName("/", "Tess")
	p.click("challenge a friend", "#challenge-open")
	p.waitShown("the challenge form", "#challenge-panel")
	p.setValue("#ch-game", "thumb_and_pouch")
	if d := eval[string](p, "the draw", `document.getElementById('ch-draw').value`); d != "1" {
		t.Errorf("Thumb and Pouch's draw in the form: %q, want 1 (its usual draw)", d)
	}
	if got := p.textOf("#ch-game-summary"); !strings.Contains(got, "any other suit") {
		t.Errorf("the form's line of rules: %q", got)
	}
	p.setValue("#ch-seed", "1")
	p.click("make the challenge", "#challenge-submit")
	p.waitShown("the board", card("T6", "AH"))
	if got := p.textOf("#rules-summary"); !strings.HasPrefix(got, "Thumb and Pouch:") {
		t.Errorf("the line of rules above the board: %q", got)
	}
	p.resignAttempt()
	p.waitText("the creator's page", "#challenge-title", "Your challenge")
	if rules := p.textOf("#challenge-rules"); !strings.HasPrefix(rules, "Thumb and Pouch · Draw 1") {
		t.Errorf("the challenge's rules read %q", rules)
	}
	p.waitShown("the game's rules", "#challenge-game")
	p.click("records", "#challenge-records")
	p.waitText("the records", "#records", "Thumb and Pouch · Draw 1")
}
