package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"klondike/engine"
)

// Deal #1 in draw 3 (see deal1): the tops are QH TS 5C 4C 3C AH AS, and the
// stock is drawn 4H AC 4D, 7S 3S TD, … so the first D shows 4D.
//
//	T6-F   AH up, QD turned: 10 + 5
//	T7-F   AS up, JS turned: 10 + 5
//	T7-T6  JS on QD, 9D turned: 5
//	T7-T2  9D on TS, 3H turned: 5
//	T7-T4  3H on 4C, 5S turned: 5
//	D      4H AC 4D to the waste
//	W-T3   4D on 5C: 5
const mixedMoves = `# deal 1, draw 3
T6-F t7-f	# both aces up; lower case is fine
T7-T6
X9          # not a move at all
T1-T2       # QH does not go on TS
T7-T2

D
W-F         # 4D is no ace
`

var mixedWant = []string{
	`{"i":1,"move":"T6-F","ok":true,"score":15,"events":["revealed","to_foundation"]}`,
	`{"i":2,"move":"T7-F","ok":true,"score":30,"events":["revealed","to_foundation"]}`,
	`{"i":3,"move":"T7-T6","ok":true,"score":35,"events":["revealed","to_tableau"]}`,
	`{"i":4,"move":"X9","ok":false,"error":"bad move \"X9\": want D, R, U, W-Tn, W-F, Tn-F, Tn-Tm, Tn:k-Tm or Fs-Tn"}`,
	`{"i":5,"move":"T1-T2","ok":false,"error":"QH on TS: a card goes on a face-up card one rank higher of the opposite colour"}`,
	`{"i":6,"move":"T7-T2","ok":true,"score":40,"events":["revealed","to_tableau"]}`,
	`{"i":7,"move":"D","ok":true,"score":40,"events":["drew"]}`,
	`{"i":8,"move":"W-F","ok":false,"error":"4D to the empty D foundation: a foundation takes the ace of its suit, then the next rank of that suit"}`,
	`{"summary":true,"won":false,"status":"playing","score":40,"moves":5,"foundation":{"C":0,"D":0,"H":1,"S":1},"illegal":3}`,
}

const legalMoves = "T6-F T7-F T7-T6 T7-T2 T7-T4 D W-T3"

// wonDeal is a layout built to be won with Tn-F moves, then D W-F in draw 1:
// each pile holds one suit's run with its lowest card on top.
const wonDeal = `{"tableau":[["6H"],["8D","7D"],["TC","9C","8C"],["4S","3S","2S","AS"],` +
	`["5H","4H","3H","2H","AH"],["6D","5D","4D","3D","2D","AD"],["7C","6C","5C","4C","3C","2C","AC"]],` +
	`"stock":["JC","QC","KC","9D","TD","JD","QD","KD","7H","8H","9H","TH","JH","QH","KH",` +
	`"5S","6S","7S","8S","9S","TS","JS","QS","KS"]}`

// wonMoves wins wonDeal in 28 + 48 moves.
var wonMoves = strings.Repeat("T7-F ", 7) + strings.Repeat("T3-F ", 3) + strings.Repeat("T6-F ", 6) +
	strings.Repeat("T2-F ", 2) + strings.Repeat("T5-F ", 5) + "T1-F " + strings.Repeat("T4-F ", 4) +
	strings.Repeat("D W-F\n", 24)

// summaryOf decodes the last line of replay's output, failing the test if it
// is not a summary.
func summaryOf(t *testing.T, out string) map[string]any {
	t.Helper()
	ls := lines(out)
	if len(ls) == 0 {
		t.Fatal("no output")
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(ls[len(ls)-1]), &m); err != nil {
		t.Fatalf("summary %q: %v", ls[len(ls)-1], err)
	}
	if m["summary"] != true {
		t.Fatalf("last line %q is not a summary", ls[len(ls)-1])
	}
	return m
}

func TestReplayMixed(t *testing.T) {
	path := writeFile(t, "game.txt", mixedMoves)
	for _, tc := range []struct {
		name  string
		stdin string
		args  []string
	}{
		{"file", "", []string{"replay", "--seed", "1", path}},
		{"stdin", mixedMoves, []string{"replay", "--seed", "1"}},
		{"dash", mixedMoves, []string{"replay", "--seed", "1", "-"}},
		{"deal file", mixedMoves, []string{"replay", "--deal", writeFile(t, "deal.json", deal1+"\n")}},
		{"explicit defaults", "", []string{"replay", "--seed", "1", "--draw", "3", "--passes", "0",
			"--scoring", "standard", "--undo", "on", path}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, status := runCmd(t, tc.stdin, tc.args...)
			if status != 1 {
				t.Errorf("exit %d, want 1; stderr %q", status, errOut)
			}
			if errOut != "" {
				t.Errorf("stderr %q, want nothing", errOut)
			}
			if got := lines(out); !slices.Equal(got, mixedWant) {
				t.Errorf("output:\n%s\nwant:\n%s", out, strings.Join(mixedWant, "\n"))
			}
		})
	}
}

// TestReplayMatchesEngine cross-checks every line of a replay with the
// engine's own answers for the same moves.
func TestReplayMatchesEngine(t *testing.T) {
	toks := strings.Fields(legalMoves + " T1-T7 U U W-F D D")
	out, _, status := runCmd(t, strings.Join(toks, "\n"), "replay", "--seed", "1")
	g, err := engine.NewGame(engine.NumberedDeal(1), engine.DefaultRules())
	if err != nil {
		t.Fatal(err)
	}
	ls := lines(out)
	if len(ls) != len(toks)+1 {
		t.Fatalf("%d lines for %d moves:\n%s", len(ls), len(toks), out)
	}
	illegal := 0
	for i, tok := range toks {
		var line struct {
			I      int       `json:"i"`
			Move   string    `json:"move"`
			OK     bool      `json:"ok"`
			Score  *int      `json:"score"`
			Events *[]string `json:"events"`
			Error  *string   `json:"error"`
		}
		if err := json.Unmarshal([]byte(ls[i]), &line); err != nil {
			t.Fatalf("line %d %q: %v", i+1, ls[i], err)
		}
		m, err := engine.ParseMove(tok)
		if err != nil {
			t.Fatal(err)
		}
		ev, err := g.Apply(m)
		if line.I != i+1 || line.Move != m.String() || line.OK != (err == nil) {
			t.Errorf("line %q: want i %d, move %s, ok %v", ls[i], i+1, m, err == nil)
		}
		if err != nil {
			illegal++
			if line.Error == nil || *line.Error != err.Error() || line.Score != nil || line.Events != nil {
				t.Errorf("line %q: want only the error %q", ls[i], err)
			}
			continue
		}
		if line.Score == nil || *line.Score != g.Score() || line.Events == nil ||
			!slices.Equal(*line.Events, ev.Names()) || line.Error != nil {
			t.Errorf("line %q: want score %d, events %q", ls[i], g.Score(), ev.Names())
		}
	}
	if illegal == 0 || status != 1 {
		t.Errorf("exit %d with %d refused moves, want 1 with some", status, illegal)
	}
	sum := summaryOf(t, out)
	want := map[string]any{
		"summary": true, "won": false, "status": g.Status().String(),
		"score": float64(g.Score()), "moves": float64(g.Moves()),
		"foundation": map[string]any{
			"C": float64(g.Foundation(engine.Clubs)), "D": float64(g.Foundation(engine.Diamonds)),
			"H": float64(g.Foundation(engine.Hearts)), "S": float64(g.Foundation(engine.Spades)),
		},
		"illegal": float64(illegal),
	}
	if got, _ := json.Marshal(sum); string(got) != string(must(json.Marshal(want))) {
		t.Errorf("summary %s, want %s", got, must(json.Marshal(want)))
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

func TestReplayAllLegal(t *testing.T) {
	out, errOut, status := runCmd(t, legalMoves, "replay", "--seed", "1")
	if status != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q; want 0", status, errOut)
	}
	ls := lines(out)
	if len(ls) != 8 {
		t.Fatalf("%d lines, want 8:\n%s", len(ls), out)
	}
	if want := `{"i":7,"move":"W-T3","ok":true,"score":50,"events":["to_tableau"]}`; ls[6] != want {
		t.Errorf("line 7 = %s, want %s", ls[6], want)
	}
	if want := `{"summary":true,"won":false,"status":"playing","score":50,"moves":7,"foundation":{"C":0,"D":0,"H":1,"S":1},"illegal":0}`; ls[7] != want {
		t.Errorf("summary = %s, want %s", ls[7], want)
	}
}

func TestReplayEmpty(t *testing.T) {
	for _, stdin := range []string{"", "\n\n", "# nothing but a comment\n   \t\r\n"} {
		out, errOut, status := runCmd(t, stdin, "replay", "--seed", "1")
		want := `{"summary":true,"won":false,"status":"playing","score":0,"moves":0,"foundation":{"C":0,"D":0,"H":0,"S":0},"illegal":0}` + "\n"
		if status != 0 || errOut != "" || out != want {
			t.Errorf("stdin %q: exit %d, stderr %q, out %q; want 0 and %s", stdin, status, errOut, out, want)
		}
	}
}

func TestReplaySeparators(t *testing.T) {
	// Tabs, CRLF line ends, comments glued to a move, a byte order mark.
	in := "\uFEFFT6-F\r\n\tT7-F#comment\r\nT7-T6 # x T1-T2\r\n"
	out, errOut, status := runCmd(t, in, "replay", "--seed", "1")
	if status != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q:\n%s", status, errOut, out)
	}
	if sum := summaryOf(t, out); sum["moves"] != 3.0 || sum["score"] != 35.0 {
		t.Errorf("summary %v, want 3 moves and score 35", sum)
	}
}

func TestReplayElapsed(t *testing.T) {
	for _, tc := range []struct {
		elapsed, moves string
		args           []string
		want           string
	}{
		// 50 points, less 2 for each of the 6 full 10 seconds.
		{"1m", legalMoves, nil, `"score":50,"moves":7,"foundation":{"C":0,"D":0,"H":1,"S":1},"illegal":0,"timed_score":38}`},
		{"1m59s", legalMoves, nil, `"score":50,"moves":7,"foundation":{"C":0,"D":0,"H":1,"S":1},"illegal":0,"timed_score":28}`},
		{"0s", legalMoves, nil, `"illegal":0,"timed_score":50}`},
		// The penalty never takes the score below zero.
		{"1h", legalMoves, nil, `"illegal":0,"timed_score":0}`},
		// Vegas has no time adjustment.
		{"1h", legalMoves, []string{"--scoring", "vegas"}, `"score":-42,"moves":7,"foundation":{"C":0,"D":0,"H":1,"S":1},"illegal":0,"timed_score":-42}`},
		// A won game gets the bonus: 625 − 24 + 700000/120.
		{"2m", wonMoves, []string{"--deal", writeFile(t, "won.json", wonDeal), "--draw", "1"},
			`{"summary":true,"won":true,"status":"won","score":625,"moves":76,"foundation":{"C":13,"D":13,"H":13,"S":13},"illegal":0,"timed_score":6434}`},
	} {
		args := append([]string{"replay", "--elapsed", tc.elapsed}, tc.args...)
		if !slices.Contains(tc.args, "--deal") {
			args = append(args, "--seed", "1")
		}
		out, errOut, status := runCmd(t, tc.moves, args...)
		ls := lines(out)
		if status != 0 || errOut != "" || len(ls) == 0 || !strings.HasSuffix(ls[len(ls)-1], tc.want) {
			t.Errorf("%q: exit %d, stderr %q, summary %q; want it to end %s", args, status, errOut, ls[len(ls)-1:], tc.want)
		}
		// The timed score agrees with the engine.
		d, _ := time.ParseDuration(tc.elapsed)
		sum := summaryOf(t, out)
		sc, _ := engine.ParseScoring(map[bool]string{true: "vegas", false: "standard"}[slices.Contains(tc.args, "vegas")])
		if want := engine.TimedScore(sc, int(sum["score"].(float64)), d, sum["won"] == true); sum["timed_score"] != float64(want) {
			t.Errorf("%q: timed_score %v, engine says %d", args, sum["timed_score"], want)
		}
	}
}

func TestReplayWon(t *testing.T) {
	deal := writeFile(t, "won.json", wonDeal)
	out, errOut, status := runCmd(t, wonMoves+"D U\n", "replay", "--deal", deal, "--draw", "1")
	if status != 1 || errOut != "" {
		t.Fatalf("exit %d, stderr %q; want 1 (moves after the win are refused)", status, errOut)
	}
	ls := lines(out)
	want := []string{
		`{"i":1,"move":"T7-F","ok":true,"score":15,"events":["revealed","to_foundation"]}`,
		`{"i":7,"move":"T7-F","ok":true,"score":100,"events":["to_foundation"]}`,
		`{"i":29,"move":"D","ok":true,"score":385,"events":["drew"]}`,
		`{"i":76,"move":"W-F","ok":true,"score":625,"events":["to_foundation","won"]}`,
		`{"i":77,"move":"D","ok":false,"error":"the game is over"}`,
		`{"i":78,"move":"U","ok":false,"error":"the game is over"}`,
		`{"summary":true,"won":true,"status":"won","score":625,"moves":76,"foundation":{"C":13,"D":13,"H":13,"S":13},"illegal":2}`,
	}
	for _, w := range want {
		if !slices.Contains(ls, w) {
			t.Errorf("no line %s in:\n%s", w, out)
		}
	}
	if len(ls) != 79 {
		t.Errorf("%d lines, want 79", len(ls))
	}
}

// drawThrough returns the moves that draw through the whole stock of 24
// cards.
func drawThrough(draw int) string {
	return strings.Repeat("D ", 24/draw)
}

func TestReplayPasses(t *testing.T) {
	// Four and two trips through the stock, each followed by R.
	three := strings.Repeat(drawThrough(3)+"R\n", 4)
	one := strings.Repeat(drawThrough(1)+"R\n", 2)
	for _, tc := range []struct {
		name     string
		args     []string
		moves    string
		recycles int // accepted R moves
		score    float64
	}{
		// Vegas: 1 pass in draw 1 and 3 in draw 3 unless --passes says otherwise.
		{"vegas draw 3", []string{"--scoring", "vegas"}, three, 2, -52},
		{"vegas draw 1", []string{"--scoring", "vegas", "--draw", "1"}, one, 0, -52},
		{"vegas draw 3 passes 0", []string{"--scoring", "vegas", "--passes", "0"}, three, 4, -52},
		{"vegas draw 1 passes 3", []string{"--scoring", "vegas", "--draw", "1", "--passes", "3"}, one, 2, -52},
		{"vegas draw 3 passes 1", []string{"--passes", "1", "--scoring", "vegas"}, three, 0, -52},
		// Standard and none: unlimited by default. The fourth recycle of
		// draw 3 costs 20 and every recycle of draw 1 costs 100, but the
		// standard score never goes below 0.
		{"standard draw 3", nil, three, 4, 0},
		{"none draw 1", []string{"--scoring", "none", "--draw", "1"}, one, 2, 0},
		{"standard passes 3", []string{"--passes", "3"}, three, 2, 0},
		{"standard draw 1 passes 1", []string{"--draw", "1", "--passes", "1"}, one, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"replay", "--seed", "1"}, tc.args...)
			out, errOut, status := runCmd(t, tc.moves, args...)
			sum := summaryOf(t, out)
			if got := strings.Count(out, `"move":"R","ok":true`); got != tc.recycles || sum["score"] != tc.score {
				t.Errorf("%d recycles, score %v; want %d, %v\n%s", got, sum["score"], tc.recycles, tc.score, out)
			}
			all := strings.Count(tc.moves, "R")
			if want := map[bool]int{true: 1, false: 0}[tc.recycles < all]; status != want || errOut != "" {
				t.Errorf("exit %d, stderr %q; want %d", status, errOut, want)
			}
			if tc.recycles < all && !strings.Contains(out, `"move":"R","ok":false,"error":"no passes through the stock are left"`) {
				t.Errorf("no refused R in\n%s", out)
			}
		})
	}
}

func TestReplayRuleFlags(t *testing.T) {
	for _, tc := range []struct {
		name  string
		args  []string
		moves string
		want  string // a line of the output
	}{
		{"undo on", nil, "T6-F U", `{"i":2,"move":"U","ok":true,"score":0,"events":["undo"]}`},
		{"undo off", []string{"--undo", "off"}, "D U", `{"i":2,"move":"U","ok":false,"error":"undo is off in this game"}`},
		{"undo no_reveal refuses", []string{"--undo", "no_reveal"}, "T6-F U",
			`{"i":2,"move":"U","ok":false,"error":"undo cannot take back a move that turned a card face up"}`},
		{"undo no_reveal refuses a draw", []string{"--undo", "no_reveal"}, "D U",
			`{"i":2,"move":"U","ok":false,"error":"undo cannot take back a move that turned a card face up"}`},
		{"undo no_reveal allows", []string{"--undo", "no_reveal"}, "D W-T3 U", `{"i":3,"move":"U","ok":true,"score":0,"events":["undo"]}`},
		{"foundation to tableau on", nil, "T6-F FH-T1", `{"i":2,"move":"FH-T1","ok":false,"error":"AH on QH: a card goes on a face-up card one rank higher of the opposite colour"}`},
		{"foundation to tableau off", []string{"--no-foundation-to-tableau"}, "T6-F FH-T1",
			`{"i":2,"move":"FH-T1","ok":false,"error":"these rules do not allow cards back from a foundation"}`},
		{"draw 1", []string{"--draw", "1"}, "D W-F", `{"i":2,"move":"W-F","ok":false,"error":"4H to the empty H foundation: a foundation takes the ace of its suit, then the next rank of that suit"}`},
		{"draw 1 then ace", []string{"--draw", "1"}, "T6-F D D W-F", `{"i":4,"move":"W-F","ok":true,"score":25,"events":["to_foundation"]}`},
		{"vegas", []string{"--scoring", "vegas"}, "T6-F", `{"i":1,"move":"T6-F","ok":true,"score":-47,"events":["revealed","to_foundation"]}`},
		{"none", []string{"--scoring", "none"}, "T6-F", `{"i":1,"move":"T6-F","ok":true,"score":0,"events":["revealed","to_foundation"]}`},
		{"count", nil, "T6-F T7-F t7:1-t6", `{"i":3,"move":"T7:1-T6","ok":true,"score":35,"events":["revealed","to_tableau"]}`},
		{"wrong count", nil, "T6-F T7-F T7:2-T6", `{"i":3,"move":"T7:2-T6","ok":false,"error":"asked to move 2, but 1 fit: the count does not match the run that fits"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"replay", "--seed", "1"}, tc.args...)
			out, _, _ := runCmd(t, tc.moves, args...)
			if !slices.Contains(lines(out), tc.want) {
				t.Errorf("no line %s in:\n%s", tc.want, out)
			}
		})
	}
}

// badDeals are deal files that replay and moves must refuse, each with the
// words that name the problem.
var badDeals = []struct {
	name, layout, want string
}{
	{"too many in a pile", strings.Replace(deal1, `[["QH"]`, `[["QH","6H"]`, 1),
		"tableau pile 1 has 2 cards, want 1"},
	{"short stock", strings.Replace(deal1, `,"6H"]}`, `]}`, 1), "stock has 23 cards, want 24"},
	{"six piles", strings.Replace(deal1, `[["QH"],`, `[`, 1), "tableau has 6 piles, want 7"},
	{"duplicate", strings.Replace(deal1, `"stock":["4H"`, `"stock":["QH"`, 1),
		"duplicate card QH (tableau pile 1 card 1 and stock card 1)"},
	{"bad token", strings.Replace(deal1, `[["QH"]`, `[["QX"]`, 1), `bad card token "QX" at tableau pile 1 card 1`},
	{"not a card list", strings.Replace(deal1, `[["QH"]`, `[[12]`, 1), "tableau pile 1 is not a list of card tokens"},
	{"no stock", `{"tableau":[]}`, `no "stock"`},
	{"unknown field", strings.Replace(deal1, `{"tableau"`, `{"waste":[],"tableau"`, 1), `unknown field "waste"`},
	{"not JSON", `tableau: QH`, "bad deal"},
	{"empty", ``, "bad deal"},
}

func TestReplayBadDealFile(t *testing.T) {
	for _, cmd := range []string{"replay", "moves"} {
		for _, tc := range badDeals {
			t.Run(cmd+"/"+tc.name, func(t *testing.T) {
				path := writeFile(t, "deal.json", tc.layout)
				out, errOut, status := runCmd(t, "D", cmd, "--deal", path, "-")
				if status != 2 {
					t.Errorf("exit %d, want 2", status)
				}
				if out != "" {
					t.Errorf("stdout %q, want nothing", out)
				}
				if !strings.Contains(errOut, tc.want) || !strings.Contains(errOut, path) {
					t.Errorf("stderr %q, want it to name %q and the file", errOut, tc.want)
				}
			})
		}
		t.Run(cmd+"/missing", func(t *testing.T) {
			out, errOut, status := runCmd(t, "", cmd, "--deal", "/nonexistent/deal.json")
			if status != 2 || out != "" || !strings.Contains(errOut, "/nonexistent/deal.json") {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2 naming the file", status, out, errOut)
			}
		})
	}
}

func TestReplayBadUsage(t *testing.T) {
	seed := []string{"--seed", "1"}
	for _, cmd := range []string{"replay", "moves"} {
		for _, tc := range []struct {
			args []string
			want string
		}{
			{nil, "no deal: give --seed N or --deal FILE"},
			{[]string{"--draw", "3"}, "no deal"},
			{[]string{"--seed", "1", "--deal", "x.json"}, "not both"},
			{[]string{"--seed", "x"}, `--seed "x"`},
			{[]string{"--seed", "-5"}, `--seed "-5"`},
			{[]string{"--deal", ""}, "--deal: want a file name"},
			{append([]string{"--draw", "2"}, seed...), "bad rules: draw 2: want 1 or 3"},
			{append([]string{"--draw", "0"}, seed...), "draw 0"},
			{append([]string{"--draw", "x"}, seed...), `invalid value "x" for flag -draw`},
			{append([]string{"--passes", "2"}, seed...), "bad rules: passes 2"},
			{append([]string{"--passes", "-1"}, seed...), "passes -1"},
			{append([]string{"--scoring", "Vegas"}, seed...), `scoring "Vegas": want standard, vegas or none`},
			{append([]string{"--undo", "maybe"}, seed...), `undo "maybe": want on, off or no_reveal`},
			{append([]string{"--no-foundation-to-tableau=maybe"}, seed...), `invalid boolean value "maybe"`},
			{append([]string{"--bogus"}, seed...), "flag provided but not defined: -bogus"},
			{append(seed, "a.txt", "b.txt"), "too many arguments"},
			{append(seed, "a.txt", "--draw", "1"), "too many arguments"},
		} {
			args := append([]string{cmd}, tc.args...)
			out, errOut, status := runCmd(t, "", args...)
			if status != 2 {
				t.Errorf("%q: exit %d, want 2", args, status)
			}
			if out != "" {
				t.Errorf("%q: stdout %q, want nothing", args, out)
			}
			if !strings.Contains(errOut, tc.want) || !strings.Contains(errOut, "klondike "+cmd+" --help") {
				t.Errorf("%q: stderr %q, want it to name %q and point to the help", args, errOut, tc.want)
			}
		}
	}
	for _, args := range [][]string{
		{"replay", "--seed", "1", "--elapsed", "-1s"},
		{"replay", "--seed", "1", "--elapsed", "5"},
		{"moves", "--seed", "1", "--elapsed", "5s"}, // only replay has --elapsed
	} {
		out, errOut, status := runCmd(t, "", args...)
		if status != 2 || out != "" || !strings.Contains(errOut, "elapsed") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2 naming --elapsed", args, status, out, errOut)
		}
	}
	// A moves file that cannot be read.
	for _, cmd := range []string{"replay", "moves"} {
		out, errOut, status := runCmd(t, "", cmd, "--seed", "1", "/nonexistent/game.txt")
		if status != 2 || out != "" || !strings.Contains(errOut, "/nonexistent/game.txt") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want 2 naming the file", cmd, status, out, errOut)
		}
	}
}
