package webtest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
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
}

// anyMoves are well-formed moves to try whether legal or not.
var anyMoves = func() []string {
	m := []string{"D", "R", "U", "W-F"}
	for i := 1; i <= 7; i++ {
		m = append(m, fmt.Sprintf("W-T%d", i), fmt.Sprintf("T%d-F", i))
		for j := 1; j <= 7; j++ {
			m = append(m, fmt.Sprintf("T%d-T%d", i, j), fmt.Sprintf("T%d:%d-T%d", i, 1+(i+j)%3, j))
		}
		for _, s := range "CDHS" {
			m = append(m, fmt.Sprintf("F%c-T%d", s, i))
		}
	}
	return m
}()

// play runs moves on the Go engine and records every answer.
func play(t *testing.T, name string, seed uint64, rules engine.Rules, moves []string) engineCase {
	t.Helper()
	deal := engine.NumberedDeal(seed)
	g, err := engine.NewGame(deal, rules)
	if err != nil {
		t.Fatal(err)
	}
	layout, _ := json.Marshal(deal)
	rj, _ := json.Marshal(rules)
	c := engineCase{Name: name, Layout: layout, Rules: rj, Moves: moves}
	for i, text := range moves {
		m, err := engine.ParseMove(text)
		if err != nil {
			t.Fatalf("%s: move %d %q: %v", name, i, text, err)
		}
		ev, err := g.Apply(m)
		st := engineStep{OK: err == nil, Events: ev.Names(), View: g.AppendViewJSON(nil, int64(i))}
		if err != nil {
			st.Err = err.Error()
			st.Events = nil
		}
		c.Want = append(c.Want, st)
	}
	return c
}

// randomGame plays mostly legal moves, some refused ones, and undos.
func randomGame(t *testing.T, seed uint64, rules engine.Rules, steps int, rng *rand.Rand) engineCase {
	deal := engine.NumberedDeal(seed)
	g, _ := engine.NewGame(deal, rules)
	var moves []string
	for len(moves) < steps && !g.Status().Over() {
		var text string
		switch legal := g.LegalMoves(nil); {
		case rng.IntN(5) == 0 || len(legal) == 0:
			text = anyMoves[rng.IntN(len(anyMoves))]
		default:
			text = legal[rng.IntN(len(legal))].String()
		}
		moves = append(moves, text)
		if m, err := engine.ParseMove(text); err == nil {
			_, _ = g.Apply(m)
		}
	}
	return play(t, fmt.Sprintf("deal %d %v", seed, rules), seed, rules, moves)
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
// viewer's) against the Go engine, move by move: the same moves accepted,
// the same refusal reasons, events and views, on random games under every
// rule variant and on a won game of deal #1.
func TestEngineParity(t *testing.T) {
	base := startServer(t)
	b := newBrowser(t)
	p := b.newPage("engine", base)
	p.navigate("/")
	p.waitFor("the page", "#app")

	won := engine.DefaultRules()
	cases := []engineCase{play(t, "deal 1 won", 1, won, readMoves(t, "../testdata/deal1-draw3-win.txt"))}
	rng := rand.New(rand.NewPCG(7, 11))
	variants := []engine.Rules{}
	for _, draw := range []int{1, 3} {
		for _, passes := range []int{0, 1, 3} {
			for _, sc := range []engine.Scoring{engine.ScoringStandard, engine.ScoringVegas, engine.ScoringNone} {
				u := []engine.UndoPolicy{engine.UndoOn, engine.UndoOff, engine.UndoNoReveal}[rng.IntN(3)]
				variants = append(variants, engine.Rules{Draw: draw, Passes: passes, Scoring: sc, Undo: u, FoundationToTableau: rng.IntN(4) != 0})
			}
		}
	}
	for i, r := range variants {
		cases = append(cases, randomGame(t, uint64(rng.IntN(100000)+i), r, 220, rng))
	}
	// Deal #10 in draw 3 is stuck before its first move.
	cases = append(cases, play(t, "deal 10 stuck", 10, won, []string{"D"}))

	in, _ := json.Marshal(cases)
	script := fmt.Sprintf(`(async () => {
		const E = await import('/static/%s/js/engine.js');
		const cases = %s;
		return cases.map((c) => {
			const g = new E.Game(c.layout, c.rules);
			const first = g.view(0);
			return {first, steps: c.moves.map((m, i) => {
				try {
					const events = g.apply(m);
					return {ok: true, err: '', events, view: g.view(i)};
				} catch (e) {
					if (e.name !== 'IllegalMove') return {ok: false, err: 'JS error: ' + e.message, view: g.view(i)};
					return {ok: false, err: e.message, events: null, view: g.view(i)};
				}
			})};
		});
	})()`, web.Version(), in)
	type jsResult struct {
		First json.RawMessage `json:"first"`
		Steps []engineStep    `json:"steps"`
	}
	got := eval[[]jsResult](p, "replay in JavaScript", script)
	if len(got) != len(cases) {
		t.Fatalf("%d results for %d cases", len(got), len(cases))
	}
	total := 0
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
		}
	}
	last := cases[0].Want[len(cases[0].Want)-1]
	if !strings.Contains(string(last.View), `"status":"won"`) {
		t.Errorf("the won game's last view: %s", last.View)
	}
	var first struct {
		Status string `json:"status"`
	}
	_ = json.Unmarshal(got[len(got)-1].First, &first)
	if first.Status != "stuck" {
		t.Errorf("deal #10 in draw 3 starts %q in JS, want stuck", first.Status)
	}
	t.Logf("%d moves in %d games agree", total, len(cases))
}
