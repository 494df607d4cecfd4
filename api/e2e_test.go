package api_test

import (
	"bufio"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"klondike/api"
	"klondike/api/apitest"
	"klondike/api/protocol"
	"klondike/api/servertest"
	"klondike/engine"
	"klondike/match"
)

// testServer runs the real server wiring on a loopback port.
func testServer(t *testing.T) (*api.Server, string) {
	t.Helper()
	srv := servertest.New(servertest.Config{
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		// The test players are bots that move as fast as they can.
		Limits: api.Limits{MsgRate: 10000, MsgBurst: 10000},
		Hint:   api.SolverHints(),
		Match: match.Config{
			LeaderboardEvery: 20 * time.Millisecond,
			Intermission:     50 * time.Millisecond,
			QuickWait:        100 * time.Millisecond,
		},
	})
	hs := httptest.NewServer(srv)
	t.Cleanup(func() {
		srv.Close()
		hs.Close()
	})
	return srv, hs.URL
}

// viewOf decodes the view a message carries (round_started, move_ok).
func viewOf(t *testing.T, raw json.RawMessage) engine.View {
	t.Helper()
	var v engine.View
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("a view that does not decode: %s", raw)
	}
	return v
}

// moveOK plays a move that must be accepted, and returns its move_ok.
func moveOK(t *testing.T, c *apitest.Client, roundID string, seq int, mv string) protocol.MoveOK {
	t.Helper()
	ans := c.Move(roundID, seq, mv)
	if ans.Type != protocol.TypeMoveOK {
		t.Fatalf("move %d %s: %s", seq, mv, ans)
	}
	return apitest.Decode[protocol.MoveOK](t, ans)
}

// winningGame reads the engine's fixture of a won game: deal #1, draw 3,
// unlimited passes, undo on.
func winningGame(t *testing.T) []string {
	t.Helper()
	f, err := os.Open("testdata/deal1-draw3-win.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var moves []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" && !strings.HasPrefix(line, "#") {
			moves = append(moves, line)
		}
	}
	return moves
}

// startRace makes alice host a match with the settings, bob join by code,
// and starts it; it returns the round_started messages.
func startRace(t *testing.T, base string, settings protocol.PartialSettings) (a, b *apitest.Client, sa, sb protocol.RoundStarted) {
	t.Helper()
	a, b = apitest.Dial(t, base), apitest.Dial(t, base)
	a.Hello("alice")
	b.Hello("bob")
	code := apitest.Request[protocol.Match](a, protocol.CreateMatch{Type: protocol.TypeCreateMatch, Settings: settings}).Match.Code
	info := apitest.Request[protocol.Match](b, protocol.MatchRef{Type: protocol.TypeJoinMatch, Code: strings.ToLower(code)}).Match
	a.Send(protocol.MatchRef{Type: protocol.TypeStartMatch, MatchID: info.ID})
	return a, b, apitest.Expect[protocol.RoundStarted](a), apitest.Expect[protocol.RoundStarted](b)
}

// resign resigns the player's game in the round.
func resign(c *apitest.Client, roundID string) {
	c.Send(protocol.Resign{Type: protocol.TypeResign, RoundID: roundID})
}

func TestRaceToTheEnd(t *testing.T) {
	_, base := testServer(t)
	a, b, sa, sb := startRace(t, base, protocol.PartialSettings{Seed: new("1"), Undo: new("on"), CountdownS: new(0), MaxPlayers: new(2)})
	if string(sa.View) != string(sb.View) {
		t.Fatalf("round_started views differ:\n%s\n%s", sa.View, sb.View)
	}
	roundID := sa.RoundID

	// An illegal move is refused with its reason and changes nothing.
	rej := apitest.Decode[protocol.MoveRejected](t, a.Move(roundID, 1, "T1-T2"))
	if rej.Type != protocol.TypeMoveRejected || rej.Code != protocol.CodeIllegalMove || !strings.Contains(rej.Reason, "QH on TS") {
		t.Fatalf("illegal move answer = %+v", rej)
	}
	// Out of order names the expected seq.
	if ooo := apitest.Decode[protocol.MoveRejected](t, a.Move(roundID, 5, "D")); ooo.Code != protocol.CodeOutOfOrder || ooo.Expected != 1 {
		t.Fatalf("out of order answer = %+v", ooo)
	}
	moves := winningGame(t)
	var last protocol.MoveOK
	for i, mv := range moves {
		last = moveOK(t, a, roundID, i+1, mv)
		if i == 0 {
			// A retry of seq 1 answers again and applies nothing.
			again := moveOK(t, a, roundID, 1, mv)
			if !again.Duplicate {
				t.Fatalf("retry of seq 1 = %+v", again)
			}
			if v := viewOf(t, again.View); v.Moves != 1 {
				t.Fatalf("after a retry the view counts %v moves, want 1", v.Moves)
			}
		}
	}
	if st := viewOf(t, last.View).Status; st != engine.Won {
		t.Fatalf("after the winning line: status %v", st)
	}
	// Bob sees alice's progress on the leaderboard.
	lb := apitest.Expect[protocol.Leaderboard](b)
	for lb.Entries[0].Status != engine.Won {
		lb = apitest.Expect[protocol.Leaderboard](b)
	}
	apitest.Request[protocol.Resigned](b, protocol.Resign{Type: protocol.TypeResign, RoundID: roundID})
	over := apitest.Expect[protocol.RoundOver](a)
	if first := over.Results[0]; first.PlayerID != a.PlayerID || first.Rank != 1 {
		t.Errorf("results = %+v, want alice first", over.Results)
	}

	// The replay reproduces every player's score through the engine.
	var rep protocol.Replay
	getJSON(t, base+over.ReplayURL, &rep)
	checkReplay(t, rep, over.Results)
	apitest.Expect[protocol.MatchOver](b)
}

// checkReplay replays every player's log through the engine, on the
// game's numbered deal under its rules, and compares the final scores
// with the results.
func checkReplay(t *testing.T, rep protocol.Replay, results []protocol.Entry) {
	t.Helper()
	seed, _ := strconv.ParseUint(rep.Seed, 10, 64)
	if !rep.KnownDeal && match.Commitment(rep.Salt, seed) != rep.Commitment {
		t.Errorf("replay commitment does not match its seed and salt")
	}
	for _, p := range rep.Players {
		g, err := engine.NewGame(engine.NumberedDealFor(rep.Rules.Game, seed), rep.Rules)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range p.Moves {
			m, err := rep.Rules.Game.ParseMove(e.Move)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := g.Apply(m); err != nil {
				t.Fatalf("replay of %s: move %d %s refused: %v", p.Name, e.Seq, e.Move, err)
			}
		}
		score := engine.TimedScore(rep.Rules.Scoring, g.Score(), time.Duration(p.Elapsed)*time.Millisecond, g.Status() == engine.Won)
		for _, e := range results {
			if e.PlayerID == p.PlayerID && e.Score != score {
				t.Errorf("%s: replayed score %d, result %v", p.Name, score, e.Score)
			}
		}
		if score != p.Score {
			t.Errorf("%s: replayed score %d, replay says %d", p.Name, score, p.Score)
		}
	}
}

func TestIntegrityNoHiddenCards(t *testing.T) {
	_, base := testServer(t)
	a, b, started, _ := startRace(t, base, protocol.PartialSettings{CountdownS: new(0), MaxPlayers: new(2), Draw: new(1)})
	roundID, rules := started.RoundID, started.Rules
	// Play until a few cards are revealed, choosing from the view.
	v := viewOf(t, started.View)
	seq := 0
	for i := 0; i < 60; i++ {
		moves := v.LegalMoves(rules, nil)
		if len(moves) == 0 || v.Status != engine.Playing {
			break
		}
		seq++
		v = viewOf(t, moveOK(t, a, roundID, seq, moves[(i*7)%len(moves)].String()).View)
	}
	resign(a, roundID)
	resign(b, roundID)
	deal := apitest.Expect[protocol.RoundOver](a).Deal
	apitest.Expect[protocol.RoundOver](b)
	seed := deal.Seed
	n, _ := strconv.ParseUint(seed, 10, 64)
	layout := engine.NumberedDeal(n)
	// Walk each player's frames in order: a card hidden in the deal may
	// appear in a frame only once a view has shown it face up.
	for _, c := range []*apitest.Client{a, b} {
		hidden := hiddenCards(layout)
		for _, frame := range c.Frames() {
			f := frame.String()
			if strings.Contains(f, `"type":"round_over"`) {
				break
			}
			if strings.Contains(f, seed) {
				t.Errorf("the seed %s appears before round_over: %s", seed, f)
			}
			if strings.Contains(f, deal.Salt) {
				t.Errorf("the salt appears before round_over: %s", f)
			}
			for _, tok := range shownInView(t, f) {
				delete(hidden, tok)
			}
			for tok := range hidden {
				if strings.Contains(f, `"`+tok+`"`) {
					t.Errorf("hidden card %s appears in a frame before round_over: %s", tok, f)
				}
			}
		}
	}
}

// hiddenCards returns the cards a deal hides: face-down tableau cards and the stock.
func hiddenCards(d engine.Deal) map[string]bool {
	hidden := map[string]bool{}
	for _, pile := range d.Tableau {
		for _, card := range pile[:len(pile)-1] {
			hidden[card.String()] = true
		}
	}
	for _, card := range d.Stock {
		hidden[card.String()] = true
	}
	return hidden
}

// shownInView returns the face-up cards of a frame's view, if it has one.
func shownInView(t *testing.T, frame string) []string {
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(frame), &m) != nil || m["view"] == nil {
		return nil
	}
	var v engine.View
	if err := json.Unmarshal(m["view"], &v); err != nil {
		t.Fatalf("a view that does not decode: %s", m["view"])
	}
	var out []string
	for _, p := range v.Tableau {
		for _, card := range p.Up {
			out = append(out, card.String())
		}
	}
	for _, card := range v.Waste {
		out = append(out, card.String())
	}
	return out
}

func TestReconnectResumes(t *testing.T) {
	_, base := testServer(t)
	seed1 := protocol.PartialSettings{Seed: new("1"), CountdownS: new(0), MaxPlayers: new(2)}
	a, _, sa, _ := startRace(t, base, seed1)
	roundID := sa.RoundID
	moveOK(t, a, roundID, 1, "T6-F")
	a2 := apitest.Dial(t, base)
	if w := a2.Resume(a.Token); w.PlayerID != a.PlayerID || !w.Resumed {
		t.Fatalf("resume welcome = %+v", w)
	}
	rs := apitest.Expect[protocol.RoundStarted](a2)
	if v := viewOf(t, rs.View); rs.LastSeq != 1 || !rs.Resumed || v.Foundations.H != 1 {
		t.Fatalf("resumed round_started = %+v, view %+v", rs, v)
	}
	// The first connection stays open, told that the other one plays.
	if pe := apitest.Expect[protocol.PlayingElsewhere](a); pe.MatchID != sa.MatchID {
		t.Errorf("playing_elsewhere = %+v, want match %s", pe, sa.MatchID)
	}
	moveOK(t, a2, roundID, 2, "T7-F")

	// play_here takes the game back: the first connection gets the match
	// and the round again, and the second is told.
	if m := apitest.Request[protocol.Match](a, protocol.PlayHere{Type: protocol.TypePlayHere}); m.Match.ID != sa.MatchID {
		t.Fatalf("play_here answered %+v", m.Match)
	}
	if rs := apitest.Expect[protocol.RoundStarted](a); rs.LastSeq != 2 || !rs.Resumed {
		t.Fatalf("round_started after play_here = %+v", rs)
	}
	if pe := apitest.Expect[protocol.PlayingElsewhere](a2); pe.MatchID != sa.MatchID {
		t.Errorf("playing_elsewhere = %+v, want match %s", pe, sa.MatchID)
	}
	moveOK(t, a, roundID, 3, "D")
}

func TestSpectatorGetsLeaderboards(t *testing.T) {
	_, base := testServer(t)
	a, _, sa, _ := startRace(t, base, protocol.PartialSettings{Seed: new("1"), CountdownS: new(0), MaxPlayers: new(2)})
	s := apitest.Dial(t, base)
	s.Hello("sam")
	apitest.Request[protocol.Match](s, protocol.MatchRef{Type: protocol.TypeSpectate, MatchID: sa.MatchID})
	moveOK(t, a, sa.RoundID, 1, "T6-F")
	lb := apitest.Expect[protocol.Leaderboard](s)
	if len(lb.Entries) != 2 {
		t.Fatalf("spectator leaderboard = %+v", lb)
	}
	for _, f := range s.Frames() {
		if strings.Contains(f.String(), `"view"`) {
			t.Errorf("a spectator got a board: %s", f)
		}
	}
}

func TestThreeRoundTotals(t *testing.T) {
	_, base := testServer(t)
	// A fixed deal: about one random draw-3 deal in 300 leaves no move
	// from the start, so its round ends at once and the resigns below
	// would be refused (round_not_running). Deal 1 is playable.
	a, b, sa, _ := startRace(t, base, protocol.PartialSettings{Rounds: new(3), CountdownS: new(0), MaxPlayers: new(2), Seed: new("1")})
	for round := 1; round <= 3; round++ {
		if round > 1 {
			sa = apitest.Expect[protocol.RoundStarted](a)
			apitest.Expect[protocol.RoundStarted](b)
		}
		if sa.Round != round {
			t.Fatalf("round %v, want %d", sa.Round, round)
		}
		resign(a, sa.RoundID)
		resign(b, sa.RoundID)
		over := apitest.Expect[protocol.RoundOver](a)
		if len(over.Totals) != 2 {
			t.Fatalf("round_over totals = %+v", over.Totals)
		}
	}
	mo := apitest.Expect[protocol.MatchOver](a)
	for _, tot := range mo.Totals {
		if n := len(tot.Placings); n != 3 {
			t.Errorf("totals %+v: %d placings, want 3", tot, n)
		}
	}
	// A player who reconnects after the match gets its results again, and
	// a rematch needs no id.
	a2 := apitest.Dial(t, base)
	if w := a2.Resume(a.Token); w.MatchID != sa.MatchID {
		t.Errorf("welcome after the match names %v, want %v", w.MatchID, sa.MatchID)
	}
	apitest.Expect[protocol.RoundOver](a2)
	apitest.Expect[protocol.MatchOver](a2)
	if next := apitest.Request[protocol.Match](a2, protocol.MatchRef{Type: protocol.TypeRematch}).Match; next.ID == sa.MatchID {
		t.Errorf("rematch answered with the old match")
	}
}

func TestTimeLimitEndsRound(t *testing.T) {
	t.Parallel()
	_, base := testServer(t)
	// Deal 1: a random deal stuck from the start would end before its limit.
	a, _, sa, _ := startRace(t, base, protocol.PartialSettings{CountdownS: new(0), MaxPlayers: new(2), TimeLimitS: new(2), Seed: new("1")})
	start := time.Now()
	over := apitest.Expect[protocol.RoundOver](a)
	if d := time.Since(start); d < time.Second {
		t.Errorf("round ended after %v, before its 2 s limit", d)
	}
	for _, e := range over.Results {
		if e.Status != engine.TimedOut {
			t.Errorf("status %v, want timed_out", e.Status)
		}
	}
	if ans := apitest.Decode[protocol.MoveRejected](t, a.Move(sa.RoundID, 1, "D")); ans.Code != protocol.CodeRoundNotRunning {
		t.Errorf("a move after the round = %+v", ans)
	}
}

func TestHTTPRoutes(t *testing.T) {
	_, base := testServer(t)
	for path, want := range map[string]int{
		"/healthz": 200, "/readyz": 200, "/metrics": 200, "/api/v1/matches": 200,
		"/api/v1/rounds/nope/leaderboard": 404, "/api/v1/rounds/nope/replay": 404,
		"/": 200, "/m/ABCDEF": 200, "/deal/1": 200, "/nope.txt": 404,
	} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s = %d, want %d: %s", path, resp.StatusCode, want, body)
		}
		if path == "/metrics" && !strings.Contains(string(body), "klondike_build_info") {
			t.Errorf("/metrics lacks klondike_build_info")
		}
	}
}
