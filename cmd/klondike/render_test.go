package main

import (
	"strings"
	"testing"

	"klondike/api/protocol"
	"klondike/engine"
)

// deal1View returns the view of deal #1 after moves, at elapsedMs.
func deal1View(t *testing.T, r engine.Rules, elapsedMs int64, moves ...string) engine.View {
	t.Helper()
	g, err := engine.NewGame(engine.NumberedDeal(1), r)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range moves {
		m, err := engine.ParseMove(s)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := g.Apply(m); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	return g.View(elapsedMs)
}

// checkText compares rendered text with the expected text line by line.
func checkText(t *testing.T, what, got, want string) {
	t.Helper()
	if got == want {
		return
	}
	gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(gl), len(wl)) {
		var g, w string
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w {
			t.Errorf("%s: line %d:\n got %q\nwant %q", what, i+1, g, w)
		}
	}
	t.Logf("%s: got\n%s", what, got)
}

func TestRenderBoardOpening(t *testing.T) {
	v := deal1View(t, engine.DefaultRules(), 0)
	want := `Foundations: C: 0  D: 0  H: 0  S: 0
Stock: 24  Waste: --  (0 cards)

T1  T2  T3  T4  T5  T6  T7
QH  ##  ##  ##  ##  ##  ##
    TS  ##  ##  ##  ##  ##
        5C  ##  ##  ##  ##
            4C  ##  ##  ##
                3C  ##  ##
                    AH  ##
                        AS

Game score: 0  Timed score: 0
Moves: 0  Time: 0:00  Pass 1 (unlimited)  Status: playing
`
	checkText(t, "deal #1 opening", renderBoard(&v, "standard", false), want)
}

func TestRenderBoardAfterMoves(t *testing.T) {
	v := deal1View(t, engine.DefaultRules(), 75300, "D", "T6-F")
	want := `Foundations: C: 0  D: 0  H: 1  S: 0
Stock: 21  Waste: 4H AC [4D]  (3 cards)

T1  T2  T3  T4  T5  T6  T7
QH  ##  ##  ##  ##  ##  ##
    TS  ##  ##  ##  ##  ##
        5C  ##  ##  ##  ##
            4C  ##  ##  ##
                3C  QD  ##
                        ##
                        AS

Game score: 15  Timed score: 1
Moves: 2  Time: 1:15  Pass 1 (unlimited)  Status: playing
`
	checkText(t, "deal #1 after D T6-F", renderBoard(&v, "standard", false), want)
	checkText(t, "legal moves", renderMoves(v.LegalMoves(engine.DefaultRules(), nil)), "Legal moves: D W-T3 T7-F\n")
}

func TestRenderBoardEmptyPileAndPasses(t *testing.T) {
	// A view made by hand: an empty pile shows "--", a pile with only
	// face-down cards only backs, and passes left are counted.
	left := 2
	v := engine.View{Stock: 0, WasteSize: 1, Waste: []engine.Card{engine.NewCard(13, engine.Spades)}}
	v.Foundations = engine.FoundationCounts{C: 13, D: 12, H: 3, S: 0}
	v.Score, v.Moves, v.PassesUsed, v.PassesLeft = -20, 300, 1, &left
	v.Status, v.ElapsedMs = engine.Stuck, 3723000
	v.Tableau[0] = engine.PileView{}
	v.Tableau[1] = engine.PileView{Down: 2}
	v.Tableau[6] = engine.PileView{Up: []engine.Card{engine.NewCard(1, engine.Hearts)}}
	want := `Foundations: C: 13  D: 12  H: 3  S: 0
Stock: 0  Waste: [KS]  (1 card)

T1  T2  T3  T4  T5  T6  T7
--  ##  --  --  --  --  AH
    ##

Game score: -20
Moves: 300  Time: 1:02:03  Pass 2 of 4  Status: stuck
`
	checkText(t, "hand-made view", renderBoard(&v, "vegas", false), want)
	if got := renderMoves(nil); got != "Legal moves: none\n" {
		t.Errorf("renderMoves(nil) = %q", got)
	}
}

func TestRenderBoardColor(t *testing.T) {
	v := deal1View(t, engine.DefaultRules(), 0)
	plain := renderBoard(&v, "standard", false)
	if strings.Contains(plain, "\x1b") {
		t.Error("plain board has escape codes")
	}
	col := renderBoard(&v, "standard", true)
	if !strings.Contains(col, ansiRed+"QH"+ansiReset) || strings.Contains(col, ansiRed+"AS") {
		t.Errorf("colour board does not paint hearts red (and only red suits):\n%q", col)
	}
	// The columns stay aligned: without the escapes it is the plain board.
	strip := strings.NewReplacer(ansiRed, "", ansiDim, "", ansiReset, "")
	if strip.Replace(col) != plain {
		t.Errorf("colour board without escapes differs from the plain one:\n%s", strip.Replace(col))
	}
}

// TestRenderBoardScores checks the board's score line: the game score
// always, labelled so, and the timed score (the leaderboard's) only under
// standard scoring, on the board's clock, with a win's bonus.
func TestRenderBoardScores(t *testing.T) {
	for _, c := range []struct {
		scoring   string
		score     int
		elapsedMs int64
		status    engine.Status
		want      string
	}{
		{"standard", 10, 9999, engine.Playing, "Game score: 10  Timed score: 10\n"},
		{"standard", 10, 10000, engine.Playing, "Game score: 10  Timed score: 8\n"},
		{"standard", 10, 100000, engine.Stuck, "Game score: 10  Timed score: 0\n"},
		{"standard", 655, 183000, engine.Won, "Game score: 655  Timed score: 4444\n"},
		{"vegas", -47, 100000, engine.Playing, "Game score: -47\n"},
		{"none", 0, 100000, engine.Playing, "Game score: 0\n"},
		{"", 10, 100000, engine.Playing, "Game score: 10\n"},
	} {
		v := engine.View{Score: c.score, ElapsedMs: c.elapsedMs, Status: c.status}
		board := renderBoard(&v, c.scoring, false)
		_, line, _ := strings.Cut(board, "\n\nGame score: ")
		if got := "Game score: " + line[:strings.IndexByte(line, '\n')+1]; got != c.want {
			t.Errorf("renderBoard(score %d at %d ms, %s, %s) score line = %q, want %q",
				c.score, c.elapsedMs, c.status, c.scoring, got, c.want)
		}
	}
}

func ms(n int64) *int64 { return &n }

var testEntries = []protocol.Entry{
	{PlayerID: "p1", Name: "alice", Rank: 1, Score: 655, Foundation: 52, Moves: 131, Status: engine.Won, FinishedMs: ms(183000)},
	{PlayerID: "p2", Name: "bob the builder", Rank: 2, Score: -12, Foundation: 4, Moves: 17, Status: engine.Playing},
	{PlayerID: "p3", Name: "carol", Rank: 3, Score: 0, Foundation: 0, Moves: 2, Status: engine.Resigned, FinishedMs: ms(9050)},
}

func TestRenderLeaderboard(t *testing.T) {
	want := `   #  Player           Timed score  Cards  Moves  Status    Finished
   1  alice                    655     52    131  won         3:03.0
>  2  bob the builder          -12      4     17  playing          -
   3  carol                      0      0      2  resigned    0:09.0
Timed score = game score - 2 points each 10 s (min 0) + a win's time bonus
`
	checkText(t, "leaderboard", renderLeaderboard(testEntries, "p2", "standard", nil), want)
	checkText(t, "empty leaderboard", renderLeaderboard(nil, "p2", "standard", nil), "  (no players)\n")
	// Without a time penalty the leaderboard shows the game score, and
	// says so; an unknown scoring gets the plain heading.
	for scoring, heading := range map[string]string{"vegas": "Game score", "none": "Game score", "": "Score"} {
		got := renderLeaderboard(testEntries[:1], "", scoring, nil)
		want := "   #  Player  " + heading + "  Cards  Moves  Status  Finished\n"
		if first, _, _ := strings.Cut(got, "1  alice"); first != want+"   " || strings.Contains(got, "Timed") {
			t.Errorf("renderLeaderboard(%q) =\n%s\nwant the heading %q and no timed score", scoring, got, heading)
		}
	}
}

var testTotals = []protocol.Total{
	{PlayerID: "p1", Name: "alice", Total: 1310, Wins: 2, GamesWon: 1, Placings: []int{1, 1}, Rank: 1},
	{PlayerID: "p2", Name: "bob the builder", Total: 40, Wins: 0, Placings: []int{2, 3}, Rank: 2},
	{PlayerID: "p3", Name: "carol", Total: 0, Wins: 0, Placings: []int{}, Rank: 3},
}

func TestRenderTotals(t *testing.T) {
	want := `   #  Player           Total  Firsts  Won  Placings
>  1  alice             1310       2    1  1 1
   2  bob the builder     40       0    0  2 3
   3  carol                0       0    0  -
`
	checkText(t, "totals", renderTotals(testTotals, "p1"), want)
	checkText(t, "match over", renderMatchOver(testTotals[:1], ""), `Match over. Final standings:
   #  Player  Total  Firsts  Won  Placings
   1  alice    1310       2    1  1 1
`)
}

func TestRenderRoundOver(t *testing.T) {
	ro := &protocol.RoundOver{
		Round: 2, Results: testEntries[:2],
		Deal:      protocol.DealReveal{Seed: "12345678901234567890", Salt: "00ff", Commitment: "abc"},
		ReplayURL: "/api/v1/rounds/r1/replay", Totals: testTotals[:2],
	}
	want := `Round 2 results:
   #  Player           Timed score  Cards  Moves  Status   Finished
>  1  alice                    655     52    131  won        3:03.0
   2  bob the builder          -12      4     17  playing         -
Timed score = game score - 2 points each 10 s (min 0) + a win's time bonus
Ties: the earlier to reach the result ranks first.
Deal: #12345678901234567890  salt 00ff
Replay: http://127.0.0.1:8080/api/v1/rounds/r1/replay
Match totals:
   #  Player           Total  Firsts  Won  Placings
>  1  alice             1310       2    1  1 1
   2  bob the builder     40       0    0  2 3
`
	checkText(t, "round over", renderRoundOver(ro, "p1", "http://127.0.0.1:8080/api/v1/rounds/r1/replay", "standard", nil), want)

	ro.Deal = protocol.DealReveal{Seed: "1", KnownDeal: true}
	ro.Totals = nil
	got := renderRoundOver(ro, "p1", "", "vegas", nil)
	if !strings.Contains(got, "Deal: #1 (a known deal)\n") || strings.Contains(got, "Replay:") || strings.Contains(got, "totals") {
		t.Errorf("known deal round over:\n%s", got)
	}
	// One heading, and no ties to speak of with one player.
	ro.Results = testEntries[:1]
	got = renderRoundOver(ro, "p1", "", "vegas", nil)
	if strings.Count(got, "esults") != 1 || strings.Contains(got, "Ties") {
		t.Errorf("one player's round over:\n%s", got)
	}
}

func testMatch() *protocol.MatchInfo {
	return &protocol.MatchInfo{
		ID: "m1", Code: "K7QX2M", Host: "p1", State: "open",
		Settings: protocol.Settings{Draw: 3, Scoring: "standard", Undo: "no_reveal", Mode: "race", Rounds: 1,
			MaxPlayers: 8, TimeLimitS: 900, CountdownS: 3},
		Players: []protocol.MemberInfo{
			{PlayerID: "p1", Name: "alice", Ready: true, Connected: true},
			{PlayerID: "p2", Name: "bob", Connected: false},
		},
	}
}

func TestRenderMatch(t *testing.T) {
	m := testMatch()
	want := `Match K7QX2M: open
  draw 3, unlimited passes, standard scoring, undo no_reveal, race, 1 round of 15:00
  Players (2/8): alice (host, ready), bob (away, you)
`
	checkText(t, "open match", renderMatch(m, "p2"), want)

	m.State, m.Round, m.Spectators, m.Quick = "running", 2, 1, true
	m.Settings.Rounds, m.Settings.Passes, m.Settings.Seed, m.Settings.Draw = 3, 1, "42", 1
	want = `Quick match K7QX2M: running, round 2 of 3, 1 spectator
  draw 1, 1 pass, standard scoring, undo no_reveal, race, 3 rounds of 15:00, deal #42
  Players (2/8): alice (host, ready), bob (away)
`
	checkText(t, "running match", renderMatch(m, ""), want)
}

func TestRenderMatchList(t *testing.T) {
	m := testMatch()
	table := `Open matches:
  Code    Host   Players  Draw  Mode  Rounds  Time
  K7QX2M  alice      2/8     3  race       1  15:00
`
	for _, c := range []struct {
		name    string
		matches []*protocol.MatchInfo
		more    bool
		want    string
	}{
		{"none", nil, false, "No open public matches (create public opens one that others see here).\n"},
		{"none on this page", nil, true, "No open public matches on this page. More follow: type list more.\n"},
		{"one", []*protocol.MatchInfo{m}, false, table},
		{"one page of several", []*protocol.MatchInfo{m}, true, table + "More matches follow: type list more.\n"},
	} {
		checkText(t, c.name, renderMatchList(c.matches, c.more), c.want)
	}
}

func TestFormatMs(t *testing.T) {
	for _, c := range []struct {
		ms     int64
		tenths bool
		want   string
	}{
		{0, false, "0:00"}, {-5, false, "0:00"}, {59999, false, "0:59"}, {60000, false, "1:00"},
		{3599999, false, "59:59"}, {3600000, false, "1:00:00"}, {183456, true, "3:03.4"},
	} {
		if got := formatMs(c.ms, c.tenths); got != c.want {
			t.Errorf("formatMs(%d, %v) = %q, want %q", c.ms, c.tenths, got, c.want)
		}
	}
}
