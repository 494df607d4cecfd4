package webtest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"klondike/api/web"
	"klondike/engine"
)

// An engineCase is a deal, rules and the moves to try, with what the Go
// engine answered to each.
type engineCase struct {
	Name   string          `json:"name"`
	Layout json.RawMessage `json:"layout"`
	Rules  json.RawMessage `json:"rules"`
	Moves  []string        `json:"moves"`
	Want   []engineStep    `json:"-"`
}

type engineStep struct {
	OK     bool            `json:"ok"`
	Err    string          `json:"err"`
	Events []string        `json:"events"`
	View   json.RawMessage `json:"view"`
	// Legal are the moves the view allows (engine.View.LegalMoves, the
	// board's legalFromView).
	Legal []string `json:"legal"`
}

// anyMoves returns well-formed moves of a game of piles piles, to try
// whether legal or not.
func anyMoves(piles int) []string {
	m := []string{"D", "R", "U", "Y", "W-F"}
	for i := 1; i <= piles; i++ {
		m = append(m, fmt.Sprintf("W-T%d", i), fmt.Sprintf("T%d-F", i))
		for j := 1; j <= piles; j++ {
			m = append(m, fmt.Sprintf("T%d-T%d", i, j), fmt.Sprintf("T%d:%d-T%d", i, 1+(i+j)%3, j))
		}
		for _, s := range "CDHS" {
			m = append(m, fmt.Sprintf("F%c-T%d", s, i))
		}
	}
	return m
}

// play runs moves on the Go engine from deal number seed of the rules'
// game and records every answer, with the legal moves of each view.
func play(t *testing.T, name string, seed uint64, rules engine.Rules, moves []string) engineCase {
	t.Helper()
	deal := engine.NumberedDealFor(rules.Game, seed)
	g, err := engine.NewGame(deal, rules)
	if err != nil {
		t.Fatal(err)
	}
	layout, _ := json.Marshal(deal)
	rj, _ := json.Marshal(rules)
	c := engineCase{Name: name, Layout: layout, Rules: rj, Moves: moves}
	for i, text := range moves {
		m, err := rules.Game.ParseMove(text)
		if err != nil {
			t.Fatalf("%s: move %d %q: %v", name, i, text, err)
		}
		ev, err := g.Apply(m)
		view, _ := json.Marshal(g.View(int64(i)))
		st := engineStep{OK: err == nil, Events: ev.Names(), View: view}
		if err != nil {
			st.Err = err.Error()
			st.Events = nil
		}
		v := g.View(int64(i))
		st.Legal = []string{}
		for _, lm := range v.LegalMoves(rules, nil) {
			st.Legal = append(st.Legal, lm.String())
		}
		c.Want = append(c.Want, st)
	}
	return c
}

// randomGame plays mostly legal moves, some refused ones, undos and redos;
// with upFirst it sends a card up whenever one can go, so that games get
// far (foundations full, won games).
func randomGame(t *testing.T, seed uint64, rules engine.Rules, steps int, upFirst bool, rng *rand.Rand) engineCase {
	deal := engine.NumberedDealFor(rules.Game, seed)
	g, _ := engine.NewGame(deal, rules)
	some := anyMoves(rules.Game.Piles())
	var moves []string
	for len(moves) < steps && !g.Status().Over() {
		legal := g.LegalMoves(nil)
		var text string
		switch r := rng.IntN(20); {
		case r == 0 || len(legal) == 0:
			text = some[rng.IntN(len(some))]
		case r <= 2:
			text = "U"
		case r <= 4 || r <= 6 && g.CanRedo():
			text = "Y"
		default:
			text = legal[rng.IntN(len(legal))].String()
			if upFirst {
				for _, m := range legal {
					if m.Kind == engine.TableauToFoundation || m.Kind == engine.WasteToFoundation {
						text = m.String()
						break
					}
				}
			}
		}
		moves = append(moves, text)
		if m, err := rules.Game.ParseMove(text); err == nil {
			_, _ = g.Apply(m)
		}
	}
	return play(t, fmt.Sprintf("%v deal %d %v", rules.Game, seed, rules), seed, rules, moves)
}

func readMoves(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var moves []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		moves = append(moves, strings.Fields(line)...)
	}
	return moves
}

// TestEngineParity checks the client's JavaScript engine (the replay
// viewer's, and the board's legal moves) against the Go engine, move by
// move: the same moves accepted, the same refusal reasons, events, views
// and legal moves of each view, on random games with undos and redos under
// every rule variant of each of the four games, on a won game of each
// game (deal #1 of Klondike, testdata/ for the others) and on deal #10,
// stuck before its first move.
func TestEngineParity(t *testing.T) {
	t.Parallel()
	base := startServer(t)
	b := newBrowser(t)
	p := b.newPage("engine", base)
	p.navigate("/")
	p.waitFor("the page", "#app")

	won := engine.DefaultRules()
	cases := []engineCase{play(t, "deal 1 won", 1, won, readMoves(t, "../testdata/deal1-draw3-win.txt"))}
	// A won game of each other game, in draw 1 (testdata/): under Vegas
	// scoring, so that its last score checks the buy-in of each.
	for _, w := range []struct {
		game engine.Variant
		seed uint64
	}{{engine.ThumbAndPouch, 1}, {engine.Whitehead, 3}, {engine.DoubleKlondike, 33}} {
		r := engine.DefaultRulesFor(w.game)
		r.Draw, r.Scoring = 1, engine.ScoringVegas
		if w.game == engine.DoubleKlondike {
			r.Passes = 0
		}
		name := fmt.Sprintf("%v deal %d won", w.game, w.seed)
		c := play(t, name, w.seed, r, readMoves(t, fmt.Sprintf("testdata/%v-deal%d-draw1-win.txt", w.game, w.seed)))
		wantEnd := fmt.Sprintf(`"score":%d,`, 5*w.game.Cards()-w.game.Cards())
		if w.game == engine.Whitehead {
			wantEnd = fmt.Sprintf(`"score":%d,`, 5*(w.game.Cards()-1)-w.game.Cards()) // the base card is dealt, not played
		}
		if end := string(c.Want[len(c.Want)-1].View); !strings.Contains(end, `"status":"won"`) || !strings.Contains(end, wantEnd) {
			t.Fatalf("%s ends %s, want it won with %s", name, end, wantEnd)
		}
		cases = append(cases, c)
	}
	wins := len(cases)
	rng := rand.New(rand.NewPCG(7, 11))
	var variants []engine.Rules
	for game := range engine.Variant(engine.NumVariants) {
		for _, draw := range []int{1, 3} {
			for _, passes := range []int{0, 1, 3} {
				for _, sc := range []engine.Scoring{engine.ScoringStandard, engine.ScoringVegas, engine.ScoringNone} {
					if game == engine.Whitehead && (draw != 1 || passes != 1) {
						continue // Whitehead draws one card with no redeal
					}
					u := []engine.UndoPolicy{engine.UndoOn, engine.UndoOff, engine.UndoNoReveal}[rng.IntN(3)]
					variants = append(variants, engine.Rules{Game: game, Draw: draw, Passes: passes, Scoring: sc, Undo: u, FoundationToTableau: rng.IntN(4) != 0})
				}
			}
		}
		// Whitehead's one variant is played under each undo policy, going
		// for the foundations (from its base rank round to the king).
		if game == engine.Whitehead {
			for _, u := range []engine.UndoPolicy{engine.UndoOn, engine.UndoOff, engine.UndoNoReveal} {
				variants = append(variants, engine.Rules{Game: game, Draw: 1, Passes: 1, Scoring: engine.ScoringVegas, Undo: u, FoundationToTableau: true})
			}
		}
	}
	games := map[engine.Variant]int{}
	for i, r := range variants {
		c := randomGame(t, uint64(rng.IntN(100000)+i), r, 220, i%2 == 1, rng)
		games[r.Game]++
		cases = append(cases, c)
	}
	// Deal #10 in draw 3 is stuck before its first move.
	cases = append(cases, play(t, "deal 10 stuck", 10, won, []string{"D"}))

	// One evaluation a case: each is a step with its own time bound, so a
	// loaded machine slows the test down without failing it.
	eval[bool](p, "the engine module", fmt.Sprintf(`import('/static/%s/js/engine.js').then((E) => { window.parityEngine = E; return true; })`, web.Version()))
	type jsResult struct {
		First json.RawMessage `json:"first"`
		Steps []engineStep    `json:"steps"`
	}
	got := make([]jsResult, 0, len(cases))
	for _, c := range cases {
		in, _ := json.Marshal(c)
		got = append(got, eval[jsResult](p, "replay in JavaScript: "+c.Name, fmt.Sprintf(`((c) => {
			const E = window.parityEngine;
			const g = new E.Game(c.layout, c.rules);
			const first = g.view(0);
			return {first, steps: c.moves.map((m, i) => {
				let step;
				try {
					const events = g.apply(m);
					step = {ok: true, err: '', events};
				} catch (e) {
					if (e.name !== 'IllegalMove') step = {ok: false, err: 'JS error: ' + e.message};
					else step = {ok: false, err: e.message, events: null};
				}
				step.view = g.view(i);
				step.legal = E.legalFromView(step.view, c.rules);
				return step;
			})};
		})(%s)`, in)))
	}
	if len(got) != len(cases) {
		t.Fatalf("%d results for %d cases", len(got), len(cases))
	}
	total, redos, undos, ups := 0, 0, 0, 0
	for ci, c := range cases {
		for i, want := range c.Want {
			total++
			have := got[ci].Steps[i]
			if have.OK != want.OK || have.Err != want.Err {
				t.Fatalf("%s: move %d %q: JS ok=%v err=%q, Go ok=%v err=%q", c.Name, i+1, c.Moves[i], have.OK, have.Err, want.OK, want.Err)
			}
			if want.OK && !reflect.DeepEqual(have.Events, want.Events) {
				t.Fatalf("%s: move %d %q: JS events %v, Go %v", c.Name, i+1, c.Moves[i], have.Events, want.Events)
			}
			var hv, wv any
			_ = json.Unmarshal(have.View, &hv)
			_ = json.Unmarshal(want.View, &wv)
			if !reflect.DeepEqual(hv, wv) {
				t.Fatalf("%s: after move %d %q:\n JS %s\n Go %s", c.Name, i+1, c.Moves[i], have.View, want.View)
			}
			if !reflect.DeepEqual(have.Legal, want.Legal) {
				t.Fatalf("%s: after move %d %q: JS legal moves %q, Go %q", c.Name, i+1, c.Moves[i], have.Legal, want.Legal)
			}
			if want.OK {
				switch {
				case c.Moves[i] == "Y":
					redos++
				case c.Moves[i] == "U":
					undos++
				case slices.Contains(want.Events, "to_foundation"):
					ups++
				}
			}
		}
	}
	for ci, c := range cases[:wins] {
		steps := got[ci].Steps
		if v := string(steps[len(steps)-1].View); !strings.Contains(v, `"status":"won"`) {
			t.Errorf("%s: the won game's last view in JS: %s", c.Name, v)
		}
	}
	var first struct {
		Status string `json:"status"`
	}
	_ = json.Unmarshal(got[len(got)-1].First, &first)
	if first.Status != "stuck" {
		t.Errorf("deal #10 in draw 3 starts %q in JS, want stuck", first.Status)
	}
	ends := map[string]int{}
	for _, c := range cases[wins:] {
		var v struct {
			Status string `json:"status"`
		}
		_ = json.Unmarshal(c.Want[len(c.Want)-1].View, &v)
		ends[v.Status]++
	}
	if len(games) != engine.NumVariants || redos == 0 || undos == 0 {
		t.Errorf("games played %v, %d undos and %d redos accepted", games, undos, redos)
	}
	t.Logf("%d moves in %d games agree (games %v; %d undos, %d redos, %d cards up accepted; ended %v)", total, len(cases), games, undos, redos, ups, ends)
}
