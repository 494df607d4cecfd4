package main

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"klondike/api/protocol"
	"klondike/engine"
	"klondike/engine/solver"
)

// The commands with --game: the deals, the moves and the replays of every
// game the engine plays, and the solver's games.

func TestDealGames(t *testing.T) {
	for v := range engine.Variant(engine.NumVariants) {
		for _, args := range [][]string{
			{"deal", "--seed", "7", "--game", v.String()},
			{"deal", "--game", v.String(), "--seed", "7"},
			{"deal", "7", "--game", v.String()},
		} {
			out, errOut, status := runCmd(t, "", args...)
			if status != 0 || errOut != "" {
				t.Fatalf("%q: exit %d, stderr %q", args, status, errOut)
			}
			want, _ := engine.NumberedDealFor(v, 7).MarshalJSON()
			if out != string(want)+"\n" {
				t.Errorf("%q =\n%s\nwant\n%s", args, out, want)
			}
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"deal", "--seed", "1", "--game", "spider"}, `--game "spider"`},
		{[]string{"deal", "x"}, `deal number "x"`},
		{[]string{"deal", "1", "2"}, "unexpected arguments"},
		{[]string{"deal", "--seed", "1", "2"}, "unexpected arguments"},
	} {
		out, errOut, status := runCmd(t, "", tc.args...)
		if status != exitUsage || out != "" || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2 and %q", tc.args, status, out, errOut, tc.want)
		}
	}
}

// TestGameRuleDefaults: without --draw and --passes a game gets its own
// (Thumb and Pouch and Whitehead draw one card, one pass); Whitehead
// refuses draw 3.
func TestGameRuleDefaults(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		rules string
	}{
		{[]string{}, "# draw 3, passes unlimited,"},
		{[]string{"--game", "klondike", "--scoring", "vegas"}, "# draw 3, passes 3,"},
		{[]string{"--game", "thumb_and_pouch"}, "# thumb_and_pouch, draw 1, passes 1,"},
		{[]string{"--game", "thumb_and_pouch", "--draw", "3", "--passes", "0"}, "# thumb_and_pouch, draw 3, passes unlimited,"},
	} {
		args := append([]string{"solve", "--seed", "1", "--nodes", "1000", "--budget", "0"}, tc.args...)
		out, errOut, status := runCmd(t, "", args...)
		if status != 0 || !strings.HasPrefix(out, tc.rules) {
			t.Errorf("%q: exit %d, stderr %q, output %q; want it to start %q", args, status, errOut, out, tc.rules)
		}
	}
	_, errOut, status := runCmd(t, "", "moves", "--seed", "1", "--game", "whitehead", "--draw", "3")
	if status != exitUsage || !strings.Contains(errOut, "whitehead turns one card at a time") {
		t.Errorf("whitehead draw 3: exit %d, stderr %q", status, errOut)
	}
}

// TestMovesGames lists the legal moves of each game's opening as the
// engine does, with the game's piles (T8 and T9 in Double Klondike).
func TestMovesGames(t *testing.T) {
	for v := range engine.Variant(engine.NumVariants) {
		out, errOut, status := runCmd(t, "", "moves", "--seed", "3", "--game", v.String())
		if status != 0 {
			t.Fatalf("%v: exit %d, stderr %q", v, status, errOut)
		}
		g, err := engine.NewGame(engine.NumberedDealFor(v, 3), engine.DefaultRulesFor(v))
		if err != nil {
			t.Fatal(err)
		}
		var want strings.Builder
		for _, m := range g.LegalMoves(nil) {
			want.WriteString(m.String() + "\n")
		}
		if out != want.String() {
			t.Errorf("%v: moves =\n%s\nwant\n%s", v, out, want.String())
		}
	}
	// Pile 8 is a move of Double Klondike only.
	out, _, status := runCmd(t, "", "moves", "--seed", "1", "--game", "double_klondike", "--draw", "1")
	if status != 0 || !strings.Contains(out, "T9-T6\n") {
		t.Errorf("double_klondike deal 1 draw 1: exit %d, moves\n%s", status, out)
	}
	_, errOut, status := runCmd(t, "T9-T6", "moves", "--seed", "1", "--draw", "1")
	if status != exitFailure || !strings.Contains(errOut, "pile number must be 1..7") {
		t.Errorf("klondike T9-T6: exit %d, stderr %q", status, errOut)
	}
}

// TestReplayGames replays moves of each game: a redo (Y), Double
// Klondike's piles 8 and 9 and its second foundations, Whitehead's base.
func TestReplayGames(t *testing.T) {
	out, errOut, status := runCmd(t, "D T9-T6 U Y", "replay", "--seed", "1", "--game", "double_klondike", "--draw", "1")
	if status != 0 {
		t.Fatalf("double_klondike: exit %d, stderr %q\n%s", status, errOut, out)
	}
	if !strings.Contains(out, `{"i":4,"move":"Y","ok":true,"score":5,"events":["revealed","to_tableau","redo"]}`) {
		t.Errorf("no redo of T9-T6 in\n%s", out)
	}
	sum := summaryOf(t, out)
	if _, ok := sum["foundation2"]; !ok || sum["moves"] != float64(4) {
		t.Errorf("double_klondike summary %v: want foundation2 and 4 moves", sum)
	}
	out, _, status = runCmd(t, "D", "replay", "--seed", "1", "--game", "whitehead")
	if sum := summaryOf(t, out); status != 0 || sum["foundation_base"] != float64(4) || sum["foundation"].(map[string]any)["H"] != float64(1) {
		t.Errorf("whitehead deal 1: exit %d, summary %v; want base 4 and 4H up", status, sum)
	}
	out, _, _ = runCmd(t, "D", "replay", "--seed", "1")
	if strings.Contains(out, "foundation2") || strings.Contains(out, "foundation_base") {
		t.Errorf("klondike summary with another game's fields:\n%s", out)
	}
	// A layout of two decks is Double Klondike's without --game.
	layout, _ := engine.NumberedDealFor(engine.DoubleKlondike, 4).MarshalJSON()
	path := writeFile(t, "dk4.json", string(layout))
	out, errOut, status = runCmd(t, "D", "replay", "--deal", path)
	if sum := summaryOf(t, out); status != 0 || sum["foundation2"] == nil {
		t.Errorf("double_klondike deal file: exit %d, stderr %q, summary %v", status, errOut, sum)
	}
	_, errOut, status = runCmd(t, "D", "replay", "--deal", path, "--game", "klondike")
	if status != exitUsage || !strings.Contains(errOut, "104-card deal for klondike") {
		t.Errorf("double_klondike deal file as klondike: exit %d, stderr %q", status, errOut)
	}
}

// TestSolveGames: the solver wins Thumb and Pouch deals and its line
// replays as a moves file of that game; Whitehead and Double Klondike, which
// it does not play, are refused with a clear message, as by winnability.
func TestSolveGames(t *testing.T) {
	out, errOut, status := runCmd(t, "", "solve", "--seed", "2", "--game", "thumb_and_pouch", "--nodes", "200000", "--budget", "0")
	if status != 0 || !strings.Contains(out, "# winnable:") {
		t.Fatalf("thumb_and_pouch deal 2: exit %d, stderr %q\n%s", status, errOut, out)
	}
	rep, errOut, status := runCmd(t, out, "replay", "--seed", "2", "--game", "thumb_and_pouch")
	if sum := summaryOf(t, rep); status != 0 || sum["won"] != true {
		t.Errorf("the line does not replay: exit %d, stderr %q, summary %v", status, errOut, sum)
	}
	for _, game := range []string{"whitehead", "double_klondike"} {
		for _, args := range [][]string{
			{"solve", "--seed", "1", "--game", game},
			{"winnability", "--count", "2", "--game", game},
		} {
			out, errOut, status := runCmd(t, "", args...)
			if status != exitUsage || out != "" || !strings.Contains(errOut, solver.ErrUnsupportedGame.Error()) || !strings.Contains(errOut, game) {
				t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2 and the solver's refusal", args, status, out, errOut)
			}
		}
	}
	out, errOut, status = runCmd(t, "", "winnability", "--count", "3", "--game", "thumb_and_pouch", "--nodes", "200000", "--budget", "0")
	if status != 0 || !strings.Contains(out, "deals 1..3 (3); thumb_and_pouch, draw 1, passes 1,") || !strings.Contains(out, "replayed to a win: 3 of 3") {
		t.Errorf("winnability thumb_and_pouch: exit %d, stderr %q\n%s", status, errOut, out)
	}
}

// TestReplayRoundGame verifies a server's replay of a round of Thumb and
// Pouch: the game comes from the replay's rules ("game"), for the deal and
// the moves; --game must agree with it.
func TestReplayRoundGame(t *testing.T) {
	rules := engine.DefaultRulesFor(engine.ThumbAndPouch)
	d := engine.NumberedDealFor(engine.ThumbAndPouch, 2)
	res := solver.Solve(d, rules, solver.Budget{Nodes: 200_000})
	if res.Verdict != solver.Winnable {
		t.Fatalf("deal 2: %v", res.Verdict)
	}
	g, _ := engine.NewGame(d, rules)
	var moves []map[string]any
	for i, m := range res.Moves {
		g.Apply(m)
		moves = append(moves, map[string]any{"seq": i + 1, "move": m.String(), "at_ms": 100 * (i + 1)})
	}
	elapsed := 100 * len(res.Moves)
	score := engine.TimedScore(rules.Scoring, g.Score(), time.Duration(elapsed)*time.Millisecond, true)
	rep := map[string]any{
		"round_id": "r1", "seed": "2", "known_deal": true, "rules": rules, "layout": d,
		"players": []map[string]any{{"player_id": "a", "name": "alice", "status": "won", "score": score, "elapsed_ms": elapsed, "moves": moves}},
	}
	b, _ := json.Marshal(rep)
	if !bytes.Contains(b, []byte(`"game":"thumb_and_pouch"`)) {
		t.Fatalf("the rules JSON carries no game: %s", b)
	}
	path := filepath.Join(t.TempDir(), "round.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, status := runCmd(t, "", "replay", "--round", path)
	if status != 0 || !strings.Contains(out, `"layout_ok":true`) || !strings.Contains(out, `"won":true`) || !strings.Contains(out, `"verified":true`) {
		t.Errorf("exit %d, stderr %q\n%s", status, errOut, out)
	}
	if _, _, status := runCmd(t, "", "replay", "--round", path, "--game", "thumb_and_pouch"); status != 0 {
		t.Errorf("--game thumb_and_pouch: exit %d", status)
	}
	_, errOut, status = runCmd(t, "", "replay", "--round", path, "--game", "klondike")
	if status != exitUsage || !strings.Contains(errOut, "a round of thumb_and_pouch, not of klondike") {
		t.Errorf("--game klondike: exit %d, stderr %q", status, errOut)
	}
}

// TestPlayGameFlag: --game goes into the settings that create, quick and
// create-challenge send, without a draw unless --draw is given, and only
// with them.
func TestPlayGameFlag(t *testing.T) {
	env := playEnv{getenv: func(string) string { return "" }, lookPath: func(string) (string, error) { return "", os.ErrNotExist }, isDir: func(string) bool { return false }}
	setup := func(args ...string) (playConfig, bool, string) {
		var out, errOut strings.Builder
		cfg, ok, _ := playSetup(append([]string{"--server", "ws://h/ws"}, args...), env, &out, &errOut)
		return cfg, ok, errOut.String()
	}
	cfg, ok, errOut := setup("--create", "--game", "thumb_and_pouch")
	if s := cfg.Settings; !ok || s.Game == nil || *s.Game != "thumb_and_pouch" || s.Draw != nil {
		t.Errorf("--create --game thumb_and_pouch: ok %v (%s), settings %+v; want the game and no draw", ok, errOut, s)
	}
	cfg, ok, _ = setup("--quick", "--game", "double_klondike", "--draw", "1")
	if s := quickSettings(cfg.Settings); !ok || s.Game == nil || *s.Game != "double_klondike" || s.Draw == nil || *s.Draw != 1 {
		t.Errorf("--quick --game double_klondike --draw 1: settings %+v", s)
	}
	cfg, ok, _ = setup("--create", "--game", "klondike")
	if s := cfg.Settings; !ok || s.Game != nil || s.Draw != nil {
		t.Errorf("--game klondike: settings %+v; want no game and no draw: the server's defaults", s)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--create", "--game", "spider"}, `--game "spider"`},
		{[]string{"--code", "K7QX2M", "--game", "whitehead"}, "--game goes with --create"},
		{[]string{"--daily", "1", "--game", "whitehead"}, "--game goes with --create"},
		{[]string{"--create", "--game", "whitehead", "--draw", "3"}, "whitehead turns one card at a time"},
	} {
		if _, ok, errOut := setup(tc.args...); ok || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: ok %v, stderr %q; want %q", tc.args, ok, errOut, tc.want)
		}
	}
	out, _, _ := runCmd(t, "", "play", "--help")
	for _, want := range []string{"--game GAME", "D, R, U, Y,", "Y plays again what U took back"} {
		if !strings.Contains(out, want) {
			t.Errorf("play --help has no %q", want)
		}
	}
	if !strings.Contains(playHelp, "Y (redo") || !strings.Contains(playHelp, "T1..T9") {
		t.Errorf("the help command does not name Y and the ninth pile:\n%s", playHelp)
	}
}

// TestPlayGameEndToEnd plays a round of Double Klondike and one of Whitehead
// on the real server, alone: the board shows the game's piles and
// foundations, moves name pile 9, U and Y take a move back and play it
// again, and the deal is checked at the end against the game's deal.
func TestPlayGameEndToEnd(t *testing.T) {
	hs := httptest.NewServer(newRealServer(t))
	t.Cleanup(hs.Close)
	srv := "ws" + strings.TrimPrefix(hs.URL, "http") + "/ws"
	zero, thirty, undo := 0, 30, "on"
	for _, tc := range []struct {
		game, board string
	}{
		{"double_klondike", "(two of each suit)"},
		{"whitehead", "king then ace)"},
	} {
		t.Run(tc.game, func(t *testing.T) {
			game := tc.game
			settings := protocol.PartialSettings{CountdownS: &zero, TimeLimitS: &thirty, Undo: &undo, Game: &game}
			p := startPlayer(t, "alice", playConfig{URL: srv, Action: "create", Settings: settings})
			p.expect(game + ", draw ")
			p.typeLine("start")
			p.expect("Round 1 started")
			p.expect(tc.board)
			p.typeLine("moves")
			p.expect("Legal moves: ")
			first := strings.Fields(p.expect("\n"))[0]
			p.typeLine(first)
			p.expect(first + " ok")
			p.typeLine("U")
			p.expect("U ok (undo)")
			p.typeLine("Y")
			p.expect("Y ok (")
			p.expect("redo)")
			if game == "double_klondike" {
				p.expect("T9")
				p.typeLine("T9-T0")
				p.expect("pile number must be 1..9")
			}
			p.typeLine("resign")
			p.typeLine("y")
			p.expect("Round 1 results:")
			p.expect("layout checked: deal #")
			if err := p.end(); err != nil {
				t.Errorf("run: %v", err)
			}
			if out := p.out.String(); strings.Contains(out, "WARNING") {
				t.Errorf("a warning in the output:\n%s", out)
			}
		})
	}
}

// TestRenderGames: the board of each game (Double Klondike's nine piles
// and two foundations a suit, Whitehead's foundation tops from its base,
// wrapping from king to ace), and the game in a match's summary and in the
// lobby's list.
func TestRenderGames(t *testing.T) {
	opening := func(v engine.Variant) engine.View {
		g, err := engine.NewGame(engine.NumberedDealFor(v, 1), engine.DefaultRulesFor(v))
		if err != nil {
			t.Fatal(err)
		}
		return g.View(0)
	}
	for _, tc := range []struct {
		game       engine.Variant
		first, hdr string
	}{
		{engine.Klondike, "Foundations: C: 0  D: 0  H: 0  S: 0\n", "\nT1  T2  T3  T4  T5  T6  T7\n"},
		{engine.ThumbAndPouch, "Foundations: C: 0  D: 0  H: 0  S: 0\n", "\nT1  T2  T3  T4  T5  T6  T7\n"},
		{engine.DoubleKlondike, "Foundations: C: 0, 0  D: 0, 0  H: 0, 0  S: 0, 0  (two of each suit)\n", "\nT1  T2  T3  T4  T5  T6  T7  T8  T9\n"},
		{engine.Whitehead, "Foundations: C: --  D: --  H: 4H  S: --  (from 4 up, king then ace)\n", "\nT1  T2  T3  T4  T5  T6  T7\n"},
	} {
		v := opening(tc.game)
		board := renderBoard(&v, "standard", false)
		if !strings.HasPrefix(board, tc.first) || !strings.Contains(board, tc.hdr) {
			t.Errorf("%v:\n%s\nwant it to start %q and hold %q", tc.game, board, tc.first, tc.hdr)
		}
	}
	v := engine.View{FoundationBase: 12, Foundations: engine.FoundationCounts{C: 3, S: 13}}
	if got, want := foundationsLine(&v, false), "Foundations: C: AC  D: --  H: --  S: JS  (from Q up, king then ace)\n"; got != want {
		t.Errorf("base Q: %q, want %q", got, want)
	}
	s := defaultSettings()
	if got := describeSettings(s); strings.Contains(got, "klondike") {
		t.Errorf("klondike settings name the game: %q", got)
	}
	s.Game = "thumb_and_pouch"
	if got := describeSettings(s); !strings.HasPrefix(got, "thumb_and_pouch, draw ") {
		t.Errorf("thumb_and_pouch settings: %q", got)
	}
	kl := &protocol.MatchInfo{Code: "AAA222", Settings: defaultSettings()}
	tp := &protocol.MatchInfo{Code: "BBB333", Settings: s}
	if got := renderMatchList([]*protocol.MatchInfo{kl}, false); strings.Contains(got, "Game") {
		t.Errorf("a list of Klondike matches with a Game column:\n%s", got)
	}
	got := renderMatchList([]*protocol.MatchInfo{kl, tp}, false)
	if !strings.Contains(got, "Time   Game\n") || !strings.Contains(got, "klondike\n") || !strings.Contains(got, "thumb_and_pouch\n") {
		t.Errorf("a list with a Thumb and Pouch match:\n%s", got)
	}
}

// defaultSettings are the server's default settings, as a match shows them.
func defaultSettings() protocol.Settings {
	return protocol.Settings{
		Draw: 3, Scoring: "standard", Undo: "no_reveal", FoundationToTableau: true, Mode: protocol.ModeRace,
		Rounds: 1, MaxPlayers: 8, TimeLimitS: 900, CountdownS: 3, Deals: protocol.DealsAny,
	}
}
