package api_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"klondike/api"
	"klondike/api/apitest"
	"klondike/api/protocol"
	"klondike/api/servertest"
	"klondike/engine"
	"klondike/lobby/memstore"
	"klondike/match"
)

// twoNodes runs two servers on one set of memory backends: two nodes of
// one deployment.
func twoNodes(t *testing.T) (a, b string) {
	t.Helper()
	mem := memstore.NewBackends()
	node := func() string {
		srv := servertest.New(servertest.Config{
			Store: mem.Store, Players: mem.Players, Coord: mem.Coord, Challenges: mem.Challenges, Records: mem.Challenges,
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
			Limits: api.Limits{MsgRate: 10000, MsgBurst: 10000},
		})
		hs := httptest.NewServer(srv)
		t.Cleanup(func() { srv.Close(); hs.Close() })
		return hs.URL
	}
	return node(), node()
}

// cardToken matches a card as the protocol writes one ("10H", "QS").
var cardToken = regexp.MustCompile(`"(10|[2-9AJQK])[SHDC]"`)

// fetch decodes the answer of a GET that must be 200.
func fetch[T any](t *testing.T, url string) T {
	t.Helper()
	var v T
	getJSON(t, url, &v)
	return v
}

// TestChallengeOverTheWire: a challenge made on one node and taken on
// another, over real WebSockets: one attempt each, a resume on the other
// node, ghosts without cards, the creator's early close ending the attempt
// still being played, and the replays published then.
func TestChallengeOverTheWire(t *testing.T) {
	nodeA, nodeB := twoNodes(t)
	alice := apitest.Dial(t, nodeA)
	alice.Hello("alice")
	made := apitest.Request[protocol.AsyncRound](alice, protocol.CreateChallenge{Type: protocol.TypeCreateChallenge, WindowS: 3600})
	id := made.Round.RoundID
	if made.URL != "/c/"+id || made.Attempt.State != protocol.AttemptNone || made.Round.Seed != "" || made.Round.Commitment == "" {
		t.Fatalf("created: %+v", made)
	}
	st := apitest.Request[protocol.RoundStarted](alice, protocol.RoundRef{Type: protocol.TypeStartAttempt, RoundID: id})
	if st.Kind != protocol.KindChallenge || st.MatchID != id || st.Seed != "" || st.Commitment != made.Round.Commitment {
		t.Fatalf("alice's round_started: %+v", st)
	}
	for seq := 1; seq <= 3; seq++ {
		if f := alice.Move(st.RoundID, seq, "D"); f.Type != protocol.TypeMoveOK {
			t.Fatalf("alice's move %d: %s", seq, f)
		}
	}
	apitest.Request[protocol.Resigned](alice, protocol.Resign{Type: protocol.TypeResign, RoundID: st.RoundID})
	over := apitest.Expect[protocol.AttemptOver](alice)
	if over.Result.Rank != 1 || over.Result.Moves != 3 || over.Finished != 1 {
		t.Fatalf("alice's attempt_over: %+v", over)
	}
	if f := alice.Reply(protocol.RoundRef{Type: protocol.TypeStartAttempt, RoundID: id}); f.Type != protocol.TypeError || apitest.Decode[protocol.Error](t, f).Code != protocol.CodeAlreadyPlayed {
		t.Fatalf("alice's second attempt: %s", f)
	}

	bob := apitest.Dial(t, nodeB)
	w := bob.Hello("bob")
	got := apitest.Request[protocol.AsyncRound](bob, protocol.RoundRef{Type: protocol.TypeGetAsyncRound, RoundID: id})
	if got.Round.CreatorName != "alice" || got.Round.Players != 1 || got.Attempt.State != protocol.AttemptNone {
		t.Fatalf("bob sees %+v", got)
	}
	sb := apitest.Request[protocol.RoundStarted](bob, protocol.RoundRef{Type: protocol.TypeStartAttempt, RoundID: id})
	if f := bob.Move(sb.RoundID, 1, "D"); f.Type != protocol.TypeMoveOK {
		t.Fatalf("bob's move: %s", f)
	}
	if hint := bob.Reply(protocol.Hint{Type: protocol.TypeHint, RoundID: sb.RoundID}); hint.Type != protocol.TypeError {
		t.Fatalf("a hint in a challenge: %s", hint)
	}
	bob.Close()

	// Bob comes back on the other node and goes on.
	bob = apitest.Dial(t, nodeA)
	bob.Resume(w.Token)
	playing := apitest.Request[protocol.AsyncRound](bob, protocol.RoundRef{Type: protocol.TypeGetAsyncRound, RoundID: id})
	if playing.Attempt.State != protocol.AttemptPlaying || playing.Attempt.RoundID != sb.RoundID {
		t.Fatalf("bob's attempt: %+v", playing.Attempt)
	}
	rs := apitest.Request[protocol.RoundStarted](bob, protocol.RoundRef{Type: protocol.TypeStartAttempt, RoundID: id})
	if !rs.Resumed || rs.LastSeq != 1 || !rs.StartsAt.Equal(sb.StartsAt) {
		t.Fatalf("bob resumed: %+v", rs)
	}
	if f := bob.Move(sb.RoundID, 2, "D"); f.Type != protocol.TypeMoveOK {
		t.Fatalf("bob's move after resuming: %s", f)
	}
	g := bob.Next(protocol.TypeGhost)
	if cardToken.Match(g.Raw) {
		t.Fatalf("a ghost carries a card: %s", g)
	}
	ghost := apitest.Decode[protocol.Ghost](t, g)
	if len(ghost.Ghosts) != 1 || ghost.Ghosts[0].Name != "alice" || ghost.RoundID != sb.RoundID {
		t.Fatalf("bob's ghost: %s", g)
	}
	board := apitest.Request[protocol.Board](bob, protocol.GetBoard{Type: protocol.TypeGetBoard, RoundID: id})
	if board.Players != 2 || board.Finished != 1 || len(board.Top) != 1 || board.Rank != 0 {
		t.Fatalf("board while bob plays: %+v", board)
	}

	if res, err := http.Get(nodeB + "/api/v1/rounds/" + id + "/replay"); err != nil || res.StatusCode != http.StatusNotFound {
		t.Fatalf("replay before the close: %v %v", res.Status, err)
	}
	if res, err := http.Get(nodeB + "/api/v1/rounds/" + st.RoundID + "/replay"); err != nil || res.StatusCode != http.StatusNotFound {
		t.Fatalf("alice's attempt's replay before the close: %v %v", res.Status, err)
	}
	closed := apitest.Request[protocol.AsyncRound](alice, protocol.RoundRef{Type: protocol.TypeCloseChallenge, RoundID: id})
	if !closed.Round.Closed || closed.Round.Seed == "" || closed.Round.Salt == "" {
		t.Fatalf("closed: %+v", closed.Round)
	}
	bo := apitest.Expect[protocol.AttemptOver](bob)
	if bo.Result.Moves != 2 || bo.Finished != 2 {
		t.Fatalf("bob's attempt_over at the close: %+v", bo)
	}
	if f := bob.Move(sb.RoundID, 3, "D"); f.Type != protocol.TypeMoveRejected {
		t.Fatalf("a move after the close: %s", f)
	}

	lb := fetch[struct {
		Over    bool                  `json:"over"`
		Entries []protocol.BoardEntry `json:"entries"`
	}](t, nodeB+"/api/v1/rounds/"+id+"/leaderboard")
	rep := fetch[struct {
		Seed       string                  `json:"seed"`
		Salt       string                  `json:"salt"`
		Commitment string                  `json:"commitment"`
		Rules      engine.Rules            `json:"rules"`
		Layout     json.RawMessage         `json:"layout"`
		Players    []protocol.PlayerReplay `json:"players"`
	}](t, nodeB+"/api/v1/rounds/"+id+"/replay")
	if !lb.Over || len(lb.Entries) != 2 || len(rep.Players) != 2 || rep.Commitment != made.Round.Commitment {
		t.Fatalf("after the close: leaderboard %+v, replay of %d players", lb, len(rep.Players))
	}
	seed := mustSeed(t, rep.Seed)
	if match.Commitment(rep.Salt, seed) != rep.Commitment {
		t.Fatal("the revealed seed and salt do not hash to the commitment")
	}
	layout, err := engine.ParseDeal(rep.Layout)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range rep.Players {
		g, err := engine.NewGame(layout, rep.Rules)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range p.Moves {
			m, err := engine.ParseMove(e.Move)
			if err == nil {
				_, err = g.Apply(m)
			}
			if err != nil {
				t.Fatalf("%s's move %d does not replay: %v", p.Name, e.Seq, err)
			}
		}
		if p.PlayerID != lb.Entries[i].PlayerID || g.Moves() != lb.Entries[i].Moves {
			t.Fatalf("replay %d does not match the board: %+v vs %+v", i, p, lb.Entries[i])
		}
	}

	recs := fetch[struct {
		Records []protocol.VariantRecord `json:"records"`
	}](t, nodeA+"/api/v1/players/"+alice.PlayerID+"/records")
	if len(recs.Records) != 1 || recs.Records[0].Variant != "draw3" || recs.Records[0].Played != 1 {
		t.Fatalf("alice's records: %+v", recs.Records)
	}
}

// TestDailyOverTheWire: GET /api/v1/daily and get_daily give today's two
// daily rounds, the same on both nodes, with their commitments and no deal.
func TestDailyOverTheWire(t *testing.T) {
	nodeA, nodeB := twoNodes(t)
	type daily struct {
		Day    string               `json:"day"`
		Rounds []protocol.AsyncInfo `json:"rounds"`
	}
	da, db := fetch[daily](t, nodeA+"/api/v1/daily"), fetch[daily](t, nodeB+"/api/v1/daily")
	if da.Day != time.Now().UTC().Format(time.DateOnly) || len(da.Rounds) != 2 || len(db.Rounds) != 2 {
		t.Fatalf("daily: %+v and %+v", da, db)
	}
	for i, r := range da.Rounds {
		if r.RoundID != db.Rounds[i].RoundID || r.Commitment == "" || r.Commitment != db.Rounds[i].Commitment || r.Seed != "" || r.Kind != protocol.KindDaily {
			t.Fatalf("daily round %d: %+v and %+v", i, r, db.Rounds[i])
		}
	}
	if da.Rounds[0].Variant != "draw3" || da.Rounds[1].Variant != "draw1" {
		t.Fatalf("daily variants %s, %s: want draw3, draw1", da.Rounds[0].Variant, da.Rounds[1].Variant)
	}
	c := apitest.Dial(t, nodeA)
	c.Hello("carol")
	ws := apitest.Request[protocol.Daily](c, protocol.GetDaily{Type: protocol.TypeGetDaily})
	if len(ws.Rounds) != 2 || ws.Rounds[0].RoundID != da.Rounds[0].RoundID {
		t.Fatalf("get_daily: %+v", ws)
	}
	st := apitest.Request[protocol.RoundStarted](c, protocol.RoundRef{Type: protocol.TypeStartAttempt, RoundID: ws.Rounds[1].RoundID})
	if st.Kind != protocol.KindDaily || st.Rules.Draw != 1 {
		t.Fatalf("daily draw 1's round_started: %+v", st)
	}
}

// mustSeed reads a deal number as the protocol writes one.
func mustSeed(t *testing.T, s string) uint64 {
	t.Helper()
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		t.Fatalf("seed %q: %v", s, err)
	}
	return n
}

// TestChallengeLimits: a window out of range is a bad request, a
// non-creator cannot close a challenge, and a player making challenges
// faster than ChallengesPerHour is refused.
func TestChallengeLimits(t *testing.T) {
	srv := servertest.New(servertest.Config{
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), ChallengesPerHour: 2,
	})
	hs := httptest.NewServer(srv)
	t.Cleanup(func() { srv.Close(); hs.Close() })
	c := apitest.Dial(t, hs.URL)
	c.Hello("alice")
	code := func(f apitest.Frame) string {
		t.Helper()
		if f.Type != protocol.TypeError {
			t.Fatalf("got %s, want an error", f)
		}
		return apitest.Decode[protocol.Error](t, f).Code
	}
	for _, w := range []int{-1, 30, 8 * 24 * 3600} {
		if got := code(c.Reply(protocol.CreateChallenge{Type: protocol.TypeCreateChallenge, WindowS: w})); got != protocol.CodeBadRequest {
			t.Fatalf("window_s %d: %s, want bad_request", w, got)
		}
	}
	made := apitest.Request[protocol.AsyncRound](c, protocol.CreateChallenge{Type: protocol.TypeCreateChallenge})
	apitest.Request[protocol.AsyncRound](c, protocol.CreateChallenge{Type: protocol.TypeCreateChallenge, WindowS: 7 * 24 * 3600})
	if got := code(c.Reply(protocol.CreateChallenge{Type: protocol.TypeCreateChallenge})); got != protocol.CodeRateLimited {
		t.Fatalf("the third challenge in an hour: %s, want rate_limited", got)
	}
	bob := apitest.Dial(t, hs.URL)
	bob.Hello("bob")
	if got := code(bob.Reply(protocol.RoundRef{Type: protocol.TypeCloseChallenge, RoundID: made.Round.RoundID})); got != protocol.CodeUnauthorized {
		t.Fatalf("bob closing alice's challenge: %s, want unauthorized", got)
	}
	if got := code(bob.Reply(protocol.RoundRef{Type: protocol.TypeStartAttempt, RoundID: "nope"})); got != protocol.CodeNotFound {
		t.Fatalf("an unknown round: %s, want not_found", got)
	}
	apitest.Request[protocol.RoundStarted](bob, protocol.RoundRef{Type: protocol.TypeStartAttempt, RoundID: made.Round.RoundID})
	res, err := http.Get(hs.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	for _, want := range []string{
		`klondike_async_events_total{event="created",kind="challenge"} 2`,
		`klondike_async_events_total{event="started",kind="challenge"} 1`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}
