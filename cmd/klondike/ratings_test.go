package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"klondike/api/protocol"
	"klondike/engine"
)

func TestFormatRating(t *testing.T) {
	for _, c := range []struct {
		r     int
		prov  bool
		delta int
		want  string
	}{
		{1500, true, 0, "1500? +0"},
		{1512, false, 12, "1512 +12"},
		{1488, false, -12, "1488 -12"},
	} {
		if got := formatRating(c.r, c.prov) + " " + formatChange(c.delta); got != c.want {
			t.Errorf("formatRating(%d, %v), formatChange(%d) = %q, want %q", c.r, c.prov, c.delta, got, c.want)
		}
	}
}

// testChanges are a rated round's changes: alice first, bob second.
var testChanges = &protocol.RoundRatings{RoundID: "r1", Changes: []protocol.RatingChange{
	{PlayerID: "p1", Name: "alice", Place: 1, Before: 1500, After: 1512, Change: 12},
	{PlayerID: "p2", Name: "bob", Place: 2, Before: 1500, After: 1488, Change: -12, Provisional: true},
}}

func TestRenderRatingChanges(t *testing.T) {
	checkText(t, "changes", renderRatingChanges(testChanges), "Ratings: alice 1512 (+12), bob 1488? (-12)\n")
	checkText(t, "unrated", renderRatingChanges(&protocol.RoundRatings{RoundID: "r1",
		Unrated: "fewer than two players made a move, so this round rates nobody"}),
		"Ratings unchanged: fewer than two players made a move, so this round rates nobody.\n")
	checkText(t, "unrated, no words", renderRatingChanges(&protocol.RoundRatings{RoundID: "r1"}),
		"Ratings unchanged: this round rates nobody.\n")
	checkText(t, "control characters", renderRatingChanges(&protocol.RoundRatings{Changes: []protocol.RatingChange{
		{Name: "\x1b[2Jeve", After: 1400, Change: -3}}}), "Ratings: ?[2Jeve 1400 (-3)\n")
}

func TestRenderLeaderboardRatings(t *testing.T) {
	want := `   #  Player           Rating       Timed score  Cards  Moves  Status    Finished
   1  alice            1512 (+12)           655     52    131  won         3:03.0
>  2  bob the builder  1488? (-12)          -12      4     17  playing          -
   3  carol            -                      0      0      2  resigned    0:09.0
Timed score = game score - 2 points each 10 s (min 0) + a win's time bonus
`
	labels := map[string]string{"p1": "1512 (+12)", "p2": "1488? (-12)"}
	checkText(t, "rated leaderboard", renderLeaderboard(testEntries, "p2", "standard", labels), want)
	// An empty map (a rated match whose ratings are not known) still has
	// the column; nil (not rated) has none.
	if got := renderLeaderboard(testEntries[:1], "", "vegas", map[string]string{}); !strings.Contains(got, "Player  Rating  Game score") || !strings.Contains(got, "alice   -  ") {
		t.Errorf("leaderboard of unknown ratings:\n%s", got)
	}
	ro := &protocol.RoundOver{Round: 1, Results: testEntries[:2], Deal: protocol.DealReveal{Seed: "1", KnownDeal: true}}
	if got := renderRoundOver(ro, "p1", "", "standard", labels); !strings.Contains(got, ">  1  alice            1512 (+12)           655") {
		t.Errorf("rated results:\n%s", got)
	}
}

func TestRenderRatedMatch(t *testing.T) {
	m := testMatch()
	m.Settings.Rated, m.Quick = true, true
	m.Players[0].Rating = 1512
	m.Players[1].Rating, m.Players[1].Provisional = 1500, true
	want := `Rated quick match K7QX2M: open
  draw 3, unlimited passes, standard scoring, undo no_reveal, race, 1 round of 15:00
  Players (2/8): alice 1512 (host, ready), bob 1500? (away, you)
`
	checkText(t, "rated quick match", renderMatch(m, "p2"), want)
	m.Quick = false
	m.Players[1].Rating = 0 // not known: no number
	if got := renderMatch(m, ""); !strings.HasPrefix(got, "Rated match K7QX2M: open\n") || !strings.Contains(got, "alice 1512 (host, ready), bob (away)\n") {
		t.Errorf("rated match:\n%s", got)
	}

	casual := testMatch()
	checkText(t, "list with a rated match", renderMatchList([]*protocol.MatchInfo{m, casual}, false), `Open matches:
  Code    Host   Players  Draw  Mode  Rounds  Time   Rated
  K7QX2M  alice      2/8     3  race       1  15:00  yes
  K7QX2M  alice      2/8     3  race       1  15:00  no
`)
}

// history returns a rating history of the ratings given, an hour apart.
func history(ratings ...float64) []ratingPoint {
	at := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	h := make([]ratingPoint, len(ratings))
	for i, r := range ratings {
		h[i] = ratingPoint{RoundID: "r", At: at.Add(time.Duration(i) * time.Hour), Rating: r, Deviation: 100}
	}
	return h
}

func TestSparkline(t *testing.T) {
	long := make([]float64, 30)
	for i := range long {
		long[i] = 1500 + float64(i)
	}
	for _, c := range []struct {
		name string
		h    []ratingPoint
		want string
	}{
		{"none", nil, "-"},
		{"one", history(1500), "▄"},
		{"flat", history(1500, 1500.2, 1499.9), "▄▄▄"},
		{"rising", history(1400, 1450, 1500, 1550, 1600, 1650, 1700, 1750), "▁▂▃▄▅▆▇█"},
		{"falling and back", history(1600, 1500, 1600), "█▁█"},
	} {
		if got := sparkline(c.h); got != c.want {
			t.Errorf("sparkline(%s) = %q, want %q", c.name, got, c.want)
		}
	}
	// The last sparkWidth points only, scaled among themselves.
	if got, want := sparkline(history(long...)), sparkline(history(long[len(long)-sparkWidth:]...)); got != want || len([]rune(got)) != sparkWidth {
		t.Errorf("sparkline of 30 points = %q, want %q, the last %d", got, want, sparkWidth)
	}
}

func TestRenderProfile(t *testing.T) {
	p := &playerProfile{}
	p.Player.ID, p.Player.Name, p.Player.Tag = "3f2a9c", "alice", "#3F2A"
	p.Ratings = []playerRating{
		{Game: "klondike", Draw: 3, Rating: 1612, Deviation: 88, Rounds: 12, Place: 57,
			History: history(1500, 1480, 1530, 1560, 1550, 1600, 1612)},
		{Game: "whitehead", Draw: 1, Rating: 1499.6, Deviation: 300, Provisional: true, Rounds: 1, History: history(1500)},
	}
	checkText(t, "profile", renderProfile(p), `Ratings of alice #3F2A:
  Game       Draw  Rating  Rounds  Place  History
  klondike      3  1612        12     57  ▂▁▄▅▅▇█
  whitehead     1  1500?        1      -  ▄
A rating with ? is provisional: it is on no ladder until it settles.
`)
	p.Ratings = p.Ratings[:1]
	if got := renderProfile(p); strings.Contains(got, "provisional") {
		t.Errorf("a profile of no provisional rating explains them:\n%s", got)
	}
	p.Ratings = nil
	checkText(t, "no ratings", renderProfile(p), "Ratings of alice #3F2A: none yet (a rated round gives one; quick matches are rated).\n")
}

// testLadder is the first page of a ladder of 1234, asked around dave
// (place 57), its top two shown.
func testLadder() *ladderPage {
	next := 20
	return &ladderPage{Game: "klondike", Draw: 3, Players: 1234, NextFrom: &next, Place: 57,
		Entries: []ladderEntry{
			{Place: 1, PlayerID: "a", Name: "alice", Rating: 1834, Deviation: 50, Rounds: 41},
			{Place: 2, PlayerID: "b", Name: "bob", Rating: 1800, Deviation: 60, Rounds: 12},
		},
		Around: []ladderEntry{
			{Place: 56, PlayerID: "c", Name: "carol", Rating: 1620, Rounds: 9},
			{Place: 57, PlayerID: "d", Name: "dave", Rating: 1612, Rounds: 12},
			{Place: 58, PlayerID: "e", Name: "erin", Rating: 1611, Rounds: 30},
		}}
}

func TestRenderLadder(t *testing.T) {
	checkText(t, "first page", renderLadder(testLadder(), "d", true), `Ladder of klondike draw 3: 1234 players with established ratings
    #  Player  Rating  Rounds
    1  alice     1834      41
    2  bob       1800      12
       ...
   56  carol     1620       9
>  57  dave      1612      12
   58  erin      1611      30
Your place: 57 of 1234.
More: type ladder next for places 21 to 40.
`)
	// Our place on the page itself is marked there, not repeated.
	p := testLadder()
	p.Place, p.Around = 2, p.Entries
	if got := renderLadder(p, "b", true); strings.Contains(got, "...") || !strings.Contains(got, ">  2  bob") || !strings.Contains(got, "Your place: 2 of 1234.") {
		t.Errorf("ladder with us on the first page:\n%s", got)
	}
	// The last page; not on the ladder when asked, nothing said when not.
	p = testLadder()
	p.NextFrom, p.Place, p.Around = nil, 0, nil
	got := renderLadder(p, "z", true)
	if strings.Contains(got, "More:") || !strings.HasSuffix(got, "You are not on this ladder: it lists established ratings only (profile shows yours).\n") {
		t.Errorf("last page, not on the ladder:\n%s", got)
	}
	if got := renderLadder(p, "z", false); strings.Contains(got, "not on this ladder") {
		t.Errorf("a next page says we are not on the ladder:\n%s", got)
	}
	checkText(t, "empty ladder", renderLadder(&ladderPage{Game: "whitehead", Draw: 1}, "", false),
		"Ladder of whitehead draw 1: 0 players with established ratings\n  (nobody yet: a rating settles after a few rated rounds)\n")
}

func TestParseLadderKey(t *testing.T) {
	for _, c := range []struct {
		in      string
		game    engine.Variant // the default game
		want    string
		wantErr string
	}{
		{"klondike/1", engine.Klondike, "klondike/1", ""},
		{"Klondike/3", engine.Whitehead, "klondike/3", ""},
		{"whitehead", engine.Klondike, "whitehead/1", ""},
		{"double_klondike", engine.Klondike, "double_klondike/3", ""},
		{"1", engine.Klondike, "klondike/1", ""},
		{"3", engine.DoubleKlondike, "double_klondike/3", ""},
		{"whitehead/3", engine.Klondike, "", "whitehead turns one card at a time"},
		{"klondike/2", engine.Klondike, "", "draw"},
		{"klondike/x", engine.Klondike, "", "the draw is 1 or 3"},
		{"spider/1", engine.Klondike, "", "want GAME/DRAW"},
	} {
		v, d, err := parseLadderKey(c.in, c.game)
		got := ""
		if err == nil {
			got = v.String() + "/" + string(rune('0'+d))
		}
		if got != c.want || (c.wantErr == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.wantErr) {
			t.Errorf("parseLadderKey(%q, %v) = %q, %v; want %q, an error with %q", c.in, c.game, got, err, c.want, c.wantErr)
		}
	}
	// With no name: the match's game and draw, else the flags'.
	game, draw := "whitehead", 1
	for _, c := range []struct {
		cfg  playConfig
		want string
	}{
		{playConfig{Draw: 3}, "klondike/3"},
		{playConfig{Draw: 1}, "klondike/1"},
		{playConfig{Draw: 3, Settings: protocol.PartialSettings{Game: &game}}, "whitehead/1"},
		{playConfig{Draw: 3, Settings: protocol.PartialSettings{Game: &game, Draw: &draw}}, "whitehead/1"},
	} {
		c2 := &playClient{cfg: c.cfg}
		if v, d := c2.ladderKey(); v.String()+"/"+string(rune('0'+d)) != c.want {
			t.Errorf("ladderKey of %+v = %v/%d, want %s", c.cfg, v, d, c.want)
		}
	}
	c2 := &playClient{cfg: playConfig{Draw: 3}, match: testMatch()}
	c2.match.Settings.Draw, c2.match.Settings.Game = 1, "thumb_and_pouch"
	if v, d := c2.ladderKey(); v != engine.ThumbAndPouch || d != 1 {
		t.Errorf("ladderKey in a thumb_and_pouch match = %v/%d", v, d)
	}
}

// ratedMatch is fakeMatch rated, bob (the host) at 1512 and alice at a
// provisional 1500.
func ratedMatch(state string) map[string]any {
	m := fakeMatch(state, "bob", "alice")
	m["settings"].(map[string]any)["rated"] = true
	ps := m["players"].([]map[string]any)
	ps[0]["rating"] = 1512
	ps[1]["rating"], ps[1]["provisional"] = 1500, true
	return m
}

// roundOverMsg is round_over of round r1 of deal #1: bob first, alice
// second.
func roundOverMsg() map[string]any {
	layout, _ := json.Marshal(engine.NumberedDeal(1))
	return map[string]any{"type": "round_over", "match_id": "m1", "round_id": "r1", "round": 1,
		"results": []map[string]any{
			{"player_id": "bob", "name": "bob", "rank": 1, "score": 30, "foundation": 2, "moves": 9, "status": "playing", "finished_ms": 900000},
			{"player_id": "alice", "name": "alice", "rank": 2, "score": 20, "foundation": 1, "moves": 6, "status": "resigned", "finished_ms": 5000},
		},
		"deal": map[string]any{"seed": "1", "salt": "s1", "commitment": commitment("s1", "1"), "layout": json.RawMessage(layout)},
	}
}

// joinRated plays the start of a rated match for alice: hello, join,
// the match, and round 1.
func joinRated(t *testing.T) (*player, *fakeConn) {
	t.Helper()
	fs := newFakeServer(t)
	p := startPlayer(t, "alice", playConfig{URL: fs.url, Action: "join", Code: "K7QX2M"})
	fc := fs.accept()
	welcome(fc, "alice")
	fc.reply(fc.next("join_match"), map[string]any{"type": "match", "match": ratedMatch("open")})
	p.expect("Rated match K7QX2M: open\n")
	p.expect("  Players (2/8): bob 1512 (host), alice 1500? (you)\n")
	startRound(fc, newDeal1Game(t), 0, false)
	p.expect("Round 1 started")
	return p, fc
}

// TestPlayRatedMatch follows a rated match's ratings: beside the names in
// the match and the leaderboard, then the round's changes printed once,
// when the match message that carries them comes after round_over, and in
// the leaderboard after.
func TestPlayRatedMatch(t *testing.T) {
	p, fc := joinRated(t)
	fc.send(map[string]any{"type": "leaderboard", "match_id": "m1", "round_id": "r1", "entries": []map[string]any{
		{"player_id": "alice", "name": "alice", "rank": 1, "score": 20, "foundation": 1, "moves": 6, "status": "playing", "finished_ms": nil},
		{"player_id": "bob", "name": "bob", "rank": 2, "score": 0, "foundation": 0, "moves": 0, "status": "playing", "finished_ms": nil},
	}})
	p.expect("Leaderboard (round 1):\n   #  Player  Rating  Timed score  Cards  Moves  Status   Finished\n")
	p.expect(">  1  alice   1500?            20      1      6  playing         -\n")
	p.expect("   2  bob     1512              0      0      0  playing         -\n")

	fc.send(roundOverMsg())
	p.expect("Round 1 results:\n")
	p.expect("   1  bob     1512 ")
	p.expect(">  2  alice   1500? ")
	p.expect("layout checked: deal #1")

	m := ratedMatch("between")
	ps := m["players"].([]map[string]any)
	ps[0]["rating"] = 1524
	ps[1]["rating"] = 1488
	m["ratings"] = map[string]any{"round_id": "r1", "changes": []map[string]any{
		{"player_id": "bob", "name": "bob", "place": 1, "before": 1512, "after": 1524, "change": 12},
		{"player_id": "alice", "name": "alice", "place": 2, "before": 1500, "after": 1488, "change": -12, "provisional": true},
	}}
	fc.send(map[string]any{"type": "match", "match": m})
	if before := p.expect("Ratings: bob 1524 (+12), alice 1488? (-12)\n"); strings.Contains(before, "Players (") {
		t.Errorf("the match summary was printed again for its new ratings:\n%s", before)
	}
	// The same ratings again (a resend): not printed twice.
	fc.send(map[string]any{"type": "match", "match": m})
	p.typeLine("lb")
	p.expect("Leaderboard (round 1):\n")
	p.expect(">  1  alice   1488? (-12)")
	p.expect("   2  bob     1524 (+12) ")
	fc.send(map[string]any{"type": "match_over", "match_id": "m1", "totals": []any{}})
	p.expect("Match over.")
	if err := p.end(); err != nil {
		t.Fatalf("run: %v", err)
	}
	if n := strings.Count(p.out.String(), "Ratings: "); n != 1 {
		t.Errorf("the ratings line was printed %d times, want once", n)
	}
}

// TestPlayRatedRoundUnrated: a round that rated nobody says why, after its
// results even when the match message came first.
func TestPlayRatedRoundUnrated(t *testing.T) {
	p, fc := joinRated(t)
	m := ratedMatch("running")
	m["ratings"] = map[string]any{"round_id": "r1", "unrated": "fewer than two players made a move, so this round rates nobody"}
	fc.send(map[string]any{"type": "match", "match": m})
	fc.send(roundOverMsg())
	before := p.expect("Ratings unchanged: fewer than two players made a move, so this round rates nobody.\n")
	if !strings.Contains(before, "Round 1 results:") {
		t.Errorf("the ratings came before the results:\n%s", before)
	}
	fc.send(map[string]any{"type": "match_over", "match_id": "m1", "totals": []any{}})
	if err := p.end(); err != nil {
		t.Fatalf("run: %v", err)
	}
}

// TestPlayRatedEndOfInput: at the end of input, a match that ends with a
// rated round waits for that round's changes, which come after match_over.
func TestPlayRatedEndOfInput(t *testing.T) {
	p, fc := joinRated(t)
	fc.send(roundOverMsg())
	p.expect("Round 1 results:\n")
	p.in.Close()
	fc.send(map[string]any{"type": "match_over", "match_id": "m1", "totals": []any{}})
	p.expect("Match over.")
	time.Sleep(50 * time.Millisecond) // the client would have ended by now
	m := ratedMatch("over")
	m["ratings"] = map[string]any{"round_id": "r1", "changes": []map[string]any{
		{"player_id": "bob", "name": "bob", "place": 1, "before": 1512, "after": 1524, "change": 12},
		{"player_id": "alice", "name": "alice", "place": 2, "before": 1500, "after": 1488, "change": -12, "provisional": true},
	}}
	fc.send(map[string]any{"type": "match", "match": m})
	if err := p.end(); err != nil {
		t.Fatalf("run: %v", err)
	}
	p.expect("Ratings: bob 1524 (+12), alice 1488? (-12)\n")
}

// TestPlayQuickCasualCreateRated checks what quick and create ask for:
// quick is the server's (rated) quick match, quick casual and --casual a
// casual one; create rated, create public rated and --rated a rated match.
func TestPlayQuickCasualCreateRated(t *testing.T) {
	fs := newFakeServer(t)
	p := startPlayer(t, "bob", playConfig{URL: fs.url})
	fc := fs.accept()
	welcome(fc, "bob")
	fc.reply(fc.next("list_matches"), map[string]any{"type": "matches", "matches": []any{}})
	p.expect("quick (rated; quick casual)")
	p.expect("profile, ladder, help or quit.\n")
	refuse := func(req map[string]any) {
		fc.reply(req, map[string]any{"type": "error", "code": "bad_request", "message": "no"})
	}
	for _, c := range []struct {
		line, typ, words string
		rated            any // the settings' rated: nil when left out
		public           any
	}{
		{"quick", "quick_match", "find a quick match", nil, nil},
		{"quick casual", "quick_match", "find a quick match", false, nil},
		{"QUICK rated", "quick_match", "find a quick match", nil, nil},
		{"create rated", "create_match", "create the match", true, nil},
		{"create rated public", "create_match", "create the match", true, true},
		{"create public", "create_match", "create the match", nil, true},
	} {
		p.typeLine(c.line)
		req := fc.next(c.typ)
		s, _ := req["settings"].(map[string]any)
		if s == nil || s["rated"] != c.rated || s["public"] != c.public || s["draw"] != nil {
			t.Errorf("%s: %s = %v, want rated %v, public %v, no draw (the server's default)", c.line, c.typ, req, c.rated, c.public)
		}
		refuse(req)
		p.expect("Could not " + c.words + ": no\n")
	}

	// A rated quick match says so, and how players are matched.
	p.typeLine("quick")
	m := ratedMatch("open")
	m["quick"] = true
	fc.reply(fc.next("quick_match"), map[string]any{"type": "match", "match": m})
	p.expect("Rated quick match K7QX2M: open\n")
	p.expect("Rated: you are seated with players near your rating, a range that widens as you wait.\n")

	// The flags' way.
	for _, c := range []struct {
		cfg   playConfig
		typ   string
		rated any
	}{
		{playConfig{URL: fs.url, Action: "quick", Casual: true}, "quick_match", false},
		{playConfig{URL: fs.url, Action: "create", Rated: true}, "create_match", true},
		{playConfig{URL: fs.url, Action: "quick"}, "quick_match", nil},
	} {
		p := startPlayer(t, "carol", c.cfg)
		fc := fs.accept()
		welcome(fc, "carol")
		req := fc.next(c.typ)
		if s, _ := req["settings"].(map[string]any); s == nil || s["rated"] != c.rated {
			t.Errorf("%+v: %s = %v, want rated %v", c.cfg, c.typ, req, c.rated)
		}
		fc.reply(req, map[string]any{"type": "error", "code": "bad_request", "message": "no"})
		if err := p.end(); err != nil {
			t.Errorf("run: %v", err)
		}
	}
}

func TestPlayRatedFlags(t *testing.T) {
	env := testPlayEnv()
	setup := func(args ...string) (playConfig, bool, string) {
		var out, errOut strings.Builder
		cfg, ok, _ := playSetup(append([]string{"--server", "ws://h/ws"}, args...), env, &out, &errOut)
		return cfg, ok, errOut.String()
	}
	for _, c := range []struct {
		args           []string
		rated, casual  bool
		wantErrContain string
	}{
		{[]string{"--create", "--rated"}, true, false, ""},
		{[]string{"--quick", "--casual"}, false, true, ""},
		{[]string{"--rated", "--casual"}, true, true, ""}, // the lobby's create and quick
		{[]string{"--quick", "--rated"}, false, false, "--rated goes with --create"},
		{[]string{"--create", "--casual"}, false, false, "--casual goes with --quick"},
		{[]string{"--daily", "3", "--rated"}, false, false, "--rated goes with --create"},
	} {
		cfg, ok, errOut := setup(c.args...)
		if c.wantErrContain != "" {
			if ok || !strings.Contains(errOut, c.wantErrContain) {
				t.Errorf("%q: ok %v, stderr %q; want %q", c.args, ok, errOut, c.wantErrContain)
			}
			continue
		}
		if !ok || cfg.Rated != c.rated || cfg.Casual != c.casual {
			t.Errorf("%q: ok %v (%s), rated %v casual %v; want %v %v", c.args, ok, errOut, cfg.Rated, cfg.Casual, c.rated, c.casual)
		}
	}
	out, _, _ := runCmd(t, "", "play", "--help")
	for _, want := range []string{"--rated", "--casual", "create [public] rated", "quick casual", "profile [PLAYER]", "ladder [GAME/DRAW]", "ladder next", "Ratings: alice 1512 (+12)"} {
		if !strings.Contains(out, want) {
			t.Errorf("play --help has no %q", want)
		}
	}
	for _, want := range []string{"quick casual", "create [public] rated", "profile [PLAYER]", "ladder [GAME/DRAW]", "ladder next"} {
		if !strings.Contains(playHelp, want) {
			t.Errorf("the help command has no %q", want)
		}
	}
}

// fakeRatingsAPI answers the ratings' HTTP routes as a server of a
// ladder of 1234 would, and records the queries it was asked.
type fakeRatingsAPI struct {
	t    *testing.T
	asks chan string // each request's path and query
}

func (f *fakeRatingsAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.asks <- r.URL.RequestURI()
	reply := func(status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(v)
	}
	q := r.URL.Query()
	switch {
	case r.URL.Path == "/api/v1/ladder/klondike/3" && q.Get("from") == "0":
		reply(http.StatusOK, testLadder())
	case r.URL.Path == "/api/v1/ladder/klondike/3":
		// The last page.
		reply(http.StatusOK, map[string]any{"game": "klondike", "draw": 3, "players": 1234, "entries": []ladderEntry{
			{Place: 21, PlayerID: "x", Name: "xavier", Rating: 1700, Rounds: 20},
		}})
	case r.URL.Path == "/api/v1/players/alice":
		p := playerProfile{Ratings: []playerRating{{Game: "klondike", Draw: 3, Rating: 1500, Deviation: 290,
			Provisional: true, Rounds: 2, History: history(1490, 1500)}}}
		p.Player.ID, p.Player.Name, p.Player.Tag = "alice", "alice", "#ALIC"
		reply(http.StatusOK, p)
	case r.URL.Path == "/api/v1/players/p-bob":
		p := playerProfile{Ratings: []playerRating{}}
		p.Player.ID, p.Player.Name, p.Player.Tag = "p-bob", "bob", "#PBOB"
		reply(http.StatusOK, p)
	default:
		reply(http.StatusNotFound, map[string]string{"code": "not_found", "message": "this server keeps no ratings"})
	}
}

// TestPlayLadderAndProfile: ladder asks for the ladder of the match's game
// and draw with our place, ladder next for the next page until the last;
// profile asks for ours, or a player of the match's by name; the server's
// refusal is shown.
func TestPlayLadderAndProfile(t *testing.T) {
	fs := newFakeServer(t)
	api := &fakeRatingsAPI{t: t, asks: make(chan string, 20)}
	fs.serveAPI(api)
	asked := func(want string) {
		t.Helper()
		select {
		case got := <-api.asks:
			if got != want {
				t.Errorf("GET %s, want %s", got, want)
			}
		case <-time.After(wait):
			t.Fatalf("no GET %s", want)
		}
	}
	p := startPlayer(t, "alice", playConfig{URL: fs.url, Action: "join", Code: "K7QX2M"})
	fc := fs.accept()
	welcome(fc, "alice")
	m := fakeMatch("open", "bob", "alice")
	m["players"].([]map[string]any)[0]["player_id"] = "p-bob"
	fc.reply(fc.next("join_match"), map[string]any{"type": "match", "match": m})
	p.expect("Joined match")

	// Input waits for the answer: ladder next sees the first page's.
	p.typeLine("ladder")
	p.typeLine("ladder next")
	p.typeLine("ladder next")
	asked("/api/v1/ladder/klondike/3?around=alice&from=0&limit=20")
	p.expect("Ladder of klondike draw 3: 1234 players with established ratings\n    #  Player  Rating  Rounds\n    1  alice     1834      41\n")
	p.expect("   56  carol     1620       9\n   57  dave      1612      12\n")
	p.expect("Your place: 57 of 1234.\nMore: type ladder next for places 21 to 40.\n")
	asked("/api/v1/ladder/klondike/3?from=20&limit=20")
	p.expect("   21  xavier    1700      20\n")
	p.expect("No more places: ladder shows the top again.\n")

	p.typeLine("profile")
	asked("/api/v1/players/alice")
	p.expect("Ratings of alice #ALIC:\n  Game      Draw  Rating  Rounds  Place  History\n  klondike     3  1500?        2      -  ▁█\n")
	p.typeLine("profile BOB")
	asked("/api/v1/players/p-bob")
	p.expect("Ratings of bob #PBOB: none yet")

	p.typeLine("ladder whitehead")
	asked("/api/v1/ladder/whitehead/1?around=alice&from=0&limit=20")
	p.expect("Could not load the ladder: this server keeps no ratings (not_found)\n")
	p.typeLine("profile nosuch")
	asked("/api/v1/players/nosuch")
	p.expect("Could not load the ratings: this server keeps no ratings (not_found)\n")
	p.typeLine("ladder a b")
	p.expect("Usage: ladder [GAME/DRAW], such as ladder klondike/1; ladder next for the next page.\n")
	if err := p.end(); err != nil {
		t.Fatalf("run: %v", err)
	}
}

// TestPlayRatedEndToEnd plays a rated match on the real server: the
// players' ratings show in the match and the results, the round's
// changes come after them, and profile and ladder read the ratings back.
func TestPlayRatedEndToEnd(t *testing.T) {
	hs := httptest.NewServer(newRealServer(t))
	t.Cleanup(hs.Close)
	url := "ws" + strings.TrimPrefix(hs.URL, "http") + "/ws"
	zero, thirty := 0, 30
	fast := protocol.PartialSettings{CountdownS: &zero, TimeLimitS: &thirty}

	alice := startPlayer(t, "alice", playConfig{URL: url, Action: "create", Rated: true, Settings: fast})
	alice.expect("Rated match ")
	alice.expect("Players (1/8): alice 1500? (host, you)\n")
	alice.expect("Invite code: ")
	code := strings.TrimSpace(alice.expect("\n"))
	bob := startPlayer(t, "bob", playConfig{URL: url, Action: "join", Code: code})
	bob.expect("Players (2/8): alice 1500? (host), bob 1500? (you)\n")
	alice.expect("bob 1500?")

	alice.typeLine("start")
	for _, p := range []*player{alice, bob} {
		p.expect("Round 1 started")
		p.typeLine("D")
		p.expect("D ok (drew)")
	}
	// Both moved; both resign, and share the last place: a rated tie.
	bob.typeLine("resign")
	bob.typeLine("y")
	bob.expect("You resigned.")
	alice.typeLine("resign")
	alice.typeLine("y")
	for _, p := range []*player{alice, bob} {
		p.expect("Round 1 results:\n   #  Player  Rating  Timed score")
		p.expect("1500?")
		p.expect("Ratings: ")
		line := p.expect("\n")
		for _, want := range []string{"alice 1500? (+0)", "bob 1500? (+0)"} {
			if !strings.Contains(line, want) {
				t.Errorf("%s: the ratings line %q has no %q", p.name, line, want)
			}
		}
	}
	alice.typeLine("profile")
	alice.expect("Ratings of alice #")
	alice.expect("  klondike     3  1500?        1      -  ▄\n")
	alice.typeLine("profile bob")
	alice.expect("Ratings of bob #")
	alice.typeLine("ladder")
	alice.expect("Ladder of klondike draw 3: 0 players with established ratings\n")
	alice.expect("You are not on this ladder: it lists established ratings only (profile shows yours).\n")
	alice.typeLine("ladder nosuch")
	alice.expect(`ladder "nosuch": want GAME/DRAW`)
	for _, p := range []*player{alice, bob} {
		if err := p.end(); err != nil {
			t.Errorf("%s: run: %v", p.name, err)
		}
		if out := p.out.String(); strings.Contains(out, "WARNING") || strings.Contains(out, " failed") {
			t.Errorf("%s: a warning or a failure in the output:\n%s", p.name, out)
		}
	}
}
