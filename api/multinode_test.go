package api_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"klondike/api"
	"klondike/api/apitest"
	"klondike/api/protocol"
	"klondike/api/servertest"
	"klondike/engine"
	"klondike/lobby/redisstore"
	"klondike/lobby/redisstore/redistest"
	"klondike/match"
)

// cluster is several server nodes on one Redis, each with clients of its
// own, as separate klondiked processes would be.
type cluster struct {
	rs     *redistest.Server
	prefix string
	nodes  []string // base URLs
}

func newCluster(t *testing.T, n int) *cluster {
	t.Helper()
	cl := &cluster{rs: redistest.Start(t, redistest.WithAOF()), prefix: redistest.Prefix(t)}
	for range n {
		cl.nodes = append(cl.nodes, cl.start(t))
	}
	return cl
}

// start wires one more node and returns its base URL.
func (cl *cluster) start(t *testing.T) string {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: cl.rs.Addr(), DialTimeout: time.Second,
		ReadTimeout: time.Second, WriteTimeout: time.Second, MaxRetries: 2})
	cfg := redisstore.Config{Prefix: cl.prefix}
	async := redisstore.NewChallenges(c, cl.prefix)
	srv := servertest.New(servertest.Config{
		Store:      redisstore.New(c, cfg),
		Players:    redisstore.NewPlayers(c, cl.prefix),
		Coord:      redisstore.NewCoord(c, cfg),
		Challenges: async,
		Records:    async,
		Logger:     slog.New(slog.NewTextHandler(io.Discard, nil)),
		Limits:     api.Limits{MsgRate: 10000, MsgBurst: 10000},
		Match:      match.Config{LeaderboardEvery: 20 * time.Millisecond, LeaseTTL: time.Second},
		// Check often for a Redis that lost its data.
		DataEpochEvery: 100 * time.Millisecond,
	})
	hs := httptest.NewServer(srv)
	t.Cleanup(func() { srv.Close(); hs.Close(); c.Close() })
	return hs.URL
}

// resume reconnects a player, by token, to the node at base.
func resume(t *testing.T, base string, old *apitest.Client) *apitest.Client {
	t.Helper()
	c := apitest.Dial(t, base)
	if w := c.Resume(old.Token); w.PlayerID != old.PlayerID || !w.Resumed {
		t.Fatalf("welcome on the other node = %+v, want %s resumed", w, old.PlayerID)
	}
	return c
}

// leaderboardWith waits for a leaderboard in which the player has made at
// least moves moves.
func leaderboardWith(t *testing.T, c *apitest.Client, playerID string, moves int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		lb := apitest.Expect[protocol.Leaderboard](c)
		if slices.ContainsFunc(lb.Entries, func(e protocol.Entry) bool { return e.PlayerID == playerID && e.Moves >= moves }) {
			return
		}
	}
	t.Fatalf("no leaderboard with %d moves of %s", moves, playerID)
}

// startOnTwo makes alice on a's node host a match with the settings and
// bob on b's node join it by code, and starts it: it returns the round's id.
func startOnTwo(t *testing.T, a, b *apitest.Client, settings protocol.PartialSettings) (info *protocol.MatchInfo, roundID string) {
	t.Helper()
	a.Hello("alice")
	b.Hello("bob")
	info = apitest.Request[protocol.Match](a, protocol.CreateMatch{Type: protocol.TypeCreateMatch, Settings: settings}).Match
	apitest.Request[protocol.Match](b, protocol.MatchRef{Type: protocol.TypeJoinMatch, Code: info.Code})
	a.Send(protocol.MatchRef{Type: protocol.TypeStartMatch, MatchID: info.ID})
	roundID = apitest.Expect[protocol.RoundStarted](a).RoundID
	apitest.Expect[protocol.RoundStarted](b)
	return info, roundID
}

// TestMultiNodeRace has two players on two nodes race one match: the
// lobby of node B lists the match made on node A, bob joins it there by
// code, both see each other's progress on the leaderboard, and both get the
// same results; node B serves the replay of a round driven by node A.
func TestMultiNodeRace(t *testing.T) {
	t.Parallel()
	cl := newCluster(t, 2)
	a, b := apitest.Dial(t, cl.nodes[0]), apitest.Dial(t, cl.nodes[1])
	a.Hello("alice")
	b.Hello("bob")
	created := apitest.Request[protocol.Match](a, protocol.CreateMatch{Type: protocol.TypeCreateMatch, Settings: protocol.PartialSettings{
		Seed: new("1"), Undo: new("on"), CountdownS: new(0), MaxPlayers: new(2), Public: new(true)}}).Match

	list := apitest.Request[protocol.Matches](b, protocol.ListMatches{Type: protocol.TypeListMatches}).Matches
	if !slices.ContainsFunc(list, func(m *protocol.MatchInfo) bool { return m.ID == created.ID }) {
		t.Fatalf("node B's lobby lists %+v, not the match %s made on node A", list, created.ID)
	}
	resp, err := http.Get(cl.nodes[1] + "/api/v1/matches")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), created.ID) {
		t.Fatalf("node B's /api/v1/matches = %s, without the match", body)
	}

	joined := apitest.Request[protocol.Match](b, protocol.MatchRef{Type: protocol.TypeJoinMatch, Code: created.Code}).Match
	if len(joined.Players) != 2 {
		t.Fatalf("after bob joined on node B: %+v", joined)
	}
	a.Send(protocol.MatchRef{Type: protocol.TypeStartMatch, MatchID: created.ID})
	sa, sb := apitest.Expect[protocol.RoundStarted](a), apitest.Expect[protocol.RoundStarted](b)
	roundID := sa.RoundID
	if sb.RoundID != roundID || !reflect.DeepEqual(viewOf(t, sa.View).Tableau, viewOf(t, sb.View).Tableau) {
		t.Fatalf("the nodes dealt differently: %+v / %+v", sa, sb)
	}

	moves := winningGame(t)
	for i := range 20 {
		moveOK(t, b, roundID, i+1, moves[i]) // bob's, on node B
	}
	// Alice, on node A, sees bob's progress made on node B.
	leaderboardWith(t, a, b.PlayerID, 20)
	for i, mv := range moves {
		moveOK(t, a, roundID, i+1, mv) // alice's, on node A
	}
	leaderboardWith(t, b, a.PlayerID, len(moves))
	resign(b, roundID)
	overA, overB := apitest.Expect[protocol.RoundOver](a), apitest.Expect[protocol.RoundOver](b)
	if !reflect.DeepEqual(overA.Results, overB.Results) {
		t.Fatalf("results differ between the nodes:\n%+v\n%+v", overA.Results, overB.Results)
	}
	if first := overA.Results[0]; first.PlayerID != a.PlayerID || first.Status != engine.Won {
		t.Fatalf("results %+v: alice won", overA.Results)
	}
	var rep protocol.Replay
	getJSON(t, cl.nodes[1]+overA.ReplayURL, &rep)
	checkReplay(t, rep, overA.Results)
	for _, p := range rep.Players {
		want := map[string]int{a.PlayerID: len(moves), b.PlayerID: 20}[p.PlayerID]
		if len(p.Moves) != want {
			t.Errorf("replay from node B: %s has %d moves, want %d", p.Name, len(p.Moves), want)
		}
	}
}

// TestMultiNodeReconnectElsewhere has a player drop from node A and
// reconnect to node B: they continue the same game from its log, and the
// replay holds every acknowledged move once.
func TestMultiNodeReconnectElsewhere(t *testing.T) {
	t.Parallel()
	cl := newCluster(t, 2)
	a, b, sa, _ := startRace(t, cl.nodes[0], protocol.PartialSettings{Seed: new("1"), Undo: new("on"), CountdownS: new(0), MaxPlayers: new(2)})
	roundID := sa.RoundID
	moves := winningGame(t)
	for i := range 30 {
		moveOK(t, a, roundID, i+1, moves[i])
	}
	a.Close()

	a2 := resume(t, cl.nodes[1], a)
	st := apitest.Expect[protocol.RoundStarted](a2)
	if st.RoundID != roundID || !st.Resumed || st.LastSeq != 30 {
		t.Fatalf("round_started on node B = %+v, want round %s resumed at seq 30", st, roundID)
	}
	// A move already acknowledged on node A answers as a duplicate on B.
	if ans := moveOK(t, a2, roundID, 30, moves[29]); !ans.Duplicate {
		t.Fatalf("retry of move 30 on node B = %+v, want a duplicate move_ok", ans)
	}
	for i := 30; i < len(moves); i++ {
		moveOK(t, a2, roundID, i+1, moves[i])
	}
	resign(b, roundID)
	over := apitest.Expect[protocol.RoundOver](b)
	var rep protocol.Replay
	getJSON(t, cl.nodes[0]+over.ReplayURL, &rep)
	checkReplay(t, rep, over.Results)
	for _, p := range rep.Players {
		if p.PlayerID == a.PlayerID && (len(p.Moves) != len(moves) || p.Status != "won") {
			t.Fatalf("alice's replay: %d moves, %s; want %d, won", len(p.Moves), p.Status, len(moves))
		}
	}
}

// TestMultiNodeClockTakeover gives a match's clock lease to a node that is
// not live (no node key: a node that died): the other node takes the clock
// over at its next try, long before the lease itself would expire, and the
// round ends on its time limit.
func TestMultiNodeClockTakeover(t *testing.T) {
	t.Parallel()
	cl := newCluster(t, 2)
	c := redis.NewClient(&redis.Options{Addr: cl.rs.Addr()})
	defer c.Close()
	a, b := apitest.Dial(t, cl.nodes[0]), apitest.Dial(t, cl.nodes[1])
	created, roundID := startOnTwo(t, a, b, protocol.PartialSettings{
		Seed: new("1"), Undo: new("on"), CountdownS: new(0), MaxPlayers: new(2), TimeLimitS: new(3)})
	lease := cl.prefix + "lease:match:" + created.ID
	holder, err := c.Get(t.Context(), lease).Result()
	if err != nil || !strings.HasPrefix(holder, "node-") {
		t.Fatalf("the clock's lease = %q, %v: want a node's", holder, err)
	}
	if n, err := c.Exists(t.Context(), cl.prefix+"node:"+holder).Result(); err != nil || n != 1 {
		t.Fatalf("the holder's node key: %d, %v; want it live", n, err)
	}
	if err := c.Set(t.Context(), lease, "dead-node", time.Hour).Err(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		cur, err := c.Get(t.Context(), lease).Result()
		if err != nil {
			t.Fatal(err)
		}
		if cur != "dead-node" {
			if !strings.HasPrefix(cur, "node-") {
				t.Fatalf("the clock's lease went to %q", cur)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no live node took the lease of a dead one within 5 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	moves := winningGame(t)
	for i := range 10 {
		moveOK(t, b, roundID, i+1, moves[i])
	}
	start := time.Now()
	overA, overB := apitest.Expect[protocol.RoundOver](a), apitest.Expect[protocol.RoundOver](b)
	if time.Since(start) > 8*time.Second {
		t.Errorf("the round ended %v after the last move; the time limit was 3 s", time.Since(start))
	}
	if !reflect.DeepEqual(overA.Results, overB.Results) {
		t.Fatalf("results differ:\n%+v\n%+v", overA.Results, overB.Results)
	}
	for _, e := range overA.Results {
		if e.Status != engine.TimedOut {
			t.Errorf("result %+v: want timed_out", e)
		}
	}
}

// TestMultiNodeDataLossVoids empties Redis in the middle of a round played
// on two nodes, as a Redis without persistence that restarted would be:
// every node sees the data epoch change, the round ends void (left out of
// the totals) and the match is over, on both nodes.
func TestMultiNodeDataLossVoids(t *testing.T) {
	t.Parallel()
	cl := newCluster(t, 2)
	a, b := apitest.Dial(t, cl.nodes[0]), apitest.Dial(t, cl.nodes[1])
	_, roundID := startOnTwo(t, a, b, protocol.PartialSettings{
		Seed: new("1"), Undo: new("on"), CountdownS: new(0), MaxPlayers: new(2), Rounds: new(3)})
	moves := winningGame(t)
	for i := range 10 {
		moveOK(t, a, roundID, i+1, moves[i])
	}
	time.Sleep(300 * time.Millisecond) // every node has read the epoch
	if _, err := cl.rs.Do("FLUSHALL"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []*apitest.Client{a, b} {
		over := apitest.Expect[protocol.RoundOver](c)
		if over.RoundID != roundID || over.Void == "" {
			t.Fatalf("round_over after the loss = %+v, want the round void", over)
		}
		for _, tot := range over.Totals {
			if tot.Total != 0 || len(tot.Placings) != 0 {
				t.Errorf("totals count the void round: %+v", tot)
			}
		}
		if mo := apitest.Expect[protocol.MatchOver](c); mo.Void == "" {
			t.Fatalf("match_over after the loss = %+v, want void", mo)
		}
	}
}

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, body)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}

// TestMultiNodeDailyAttempt: two nodes on one Redis agree on today's daily
// rounds; a player's attempt started on one is resumed on the other, where
// it goes on and ends, on the board both nodes read.
func TestMultiNodeDailyAttempt(t *testing.T) {
	t.Parallel()
	cl := newCluster(t, 2)
	a := apitest.Dial(t, cl.nodes[0])
	a.Hello("alice")
	b := apitest.Dial(t, cl.nodes[1])
	b.Hello("bob")
	da := apitest.Request[protocol.Daily](a, protocol.GetDaily{Type: protocol.TypeGetDaily})
	db := apitest.Request[protocol.Daily](b, protocol.GetDaily{Type: protocol.TypeGetDaily})
	if len(da.Rounds) != 2 || len(db.Rounds) != 2 {
		t.Fatalf("daily rounds: %d and %d, want 2", len(da.Rounds), len(db.Rounds))
	}
	for i := range da.Rounds {
		if da.Rounds[i].RoundID != db.Rounds[i].RoundID || da.Rounds[i].Commitment != db.Rounds[i].Commitment {
			t.Fatalf("the nodes disagree on daily round %d: %+v and %+v", i, da.Rounds[i], db.Rounds[i])
		}
	}
	id := da.Rounds[0].RoundID
	st := apitest.Request[protocol.RoundStarted](a, protocol.RoundRef{Type: protocol.TypeStartAttempt, RoundID: id})
	for seq := 1; seq <= 3; seq++ {
		moveOK(t, a, st.RoundID, seq, "D")
	}
	a.Close()

	a2 := resume(t, cl.nodes[1], a)
	re := apitest.Request[protocol.RoundStarted](a2, protocol.RoundRef{Type: protocol.TypeStartAttempt, RoundID: id})
	if !re.Resumed || re.RoundID != st.RoundID || re.LastSeq != 3 || !re.StartsAt.Equal(st.StartsAt) {
		t.Fatalf("resumed on node B = %+v, want %s at seq 3 on its first clock", re, st.RoundID)
	}
	moveOK(t, a2, st.RoundID, 4, "D")
	resign(a2, st.RoundID)
	over := apitest.Expect[protocol.AttemptOver](a2)
	if over.Result.Moves != 4 || over.Finished != 1 {
		t.Fatalf("attempt_over = %+v", over)
	}
	board := apitest.Request[protocol.Board](b, protocol.GetBoard{Type: protocol.TypeGetBoard, RoundID: id})
	if board.Finished != 1 || len(board.Top) != 1 || board.Top[0].PlayerID != a.PlayerID || board.Top[0].Moves != 4 {
		t.Fatalf("the board on node A: %+v", board)
	}
}
