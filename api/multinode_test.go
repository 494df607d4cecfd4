package api_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"klondike/api"
	"klondike/api/protocol"
	"klondike/match"
	"klondike/match/redisstore"
	"klondike/match/redisstore/redistest"
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
	srv := api.NewServer(api.Config{
		Store:    redisstore.New(c, cfg),
		Sessions: redisstore.NewSessions(c, cl.prefix),
		Coord:    redisstore.NewCoord(c, cfg),
		Logger:   slog.New(slog.NewTextHandler(io.Discard, nil)),
		Limits:   api.Limits{MsgRate: 10000, MsgBurst: 10000},
		Match:    match.Config{LeaderboardEvery: 20 * time.Millisecond, LeaseTTL: time.Second},
		// Check often for a Redis that lost its data.
		DataEpochEvery: 100 * time.Millisecond,
	})
	hs := httptest.NewServer(srv)
	t.Cleanup(func() { srv.Close(); hs.Close(); c.Close() })
	return hs.URL
}

// resume reconnects a player, by token, to the node at base.
func resume(t *testing.T, base string, old *client) *client {
	t.Helper()
	c := dial(t, base)
	c.send(map[string]any{"type": "hello", "token": old.token})
	w := c.expect("welcome")
	if w["player_id"] != old.id || w["resumed"] != true {
		t.Fatalf("welcome on the other node = %v, want %s resumed", w, old.id)
	}
	c.id, c.token = old.id, old.token
	return c
}

// leaderboardWith waits for a leaderboard in which the player has made at
// least moves moves.
func leaderboardWith(t *testing.T, c *client, playerID string, moves int) map[string]any {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		lb := c.expect("leaderboard")
		for _, e := range lb["entries"].([]any) {
			e := e.(map[string]any)
			if e["player_id"] == playerID && int(e["moves"].(float64)) >= moves {
				return lb
			}
		}
	}
	t.Fatalf("no leaderboard with %d moves of %s", moves, playerID)
	return nil
}

// TestMultiNodeRace has two players on two nodes race one match: the
// lobby of node B lists the match made on node A, bob joins it there by
// code, both see each other's progress on the leaderboard, and both get the
// same results; node B serves the replay of a round driven by node A.
func TestMultiNodeRace(t *testing.T) {
	cl := newCluster(t, 2)
	a, b := dial(t, cl.nodes[0]), dial(t, cl.nodes[1])
	a.hello("alice")
	b.hello("bob")
	a.send(map[string]any{"type": "create_match", "settings": map[string]any{
		"seed": "1", "undo": "on", "countdown_s": 0, "max_players": 2, "public": true}})
	created := a.expect("match")["match"].(map[string]any)

	b.send(map[string]any{"type": "list_matches"})
	list := b.expect("matches")["matches"].([]any)
	if !slices.ContainsFunc(list, func(m any) bool { return m.(map[string]any)["id"] == created["id"] }) {
		t.Fatalf("node B's lobby lists %v, not the match %s made on node A", list, created["id"])
	}
	resp, err := http.Get(cl.nodes[1] + "/api/v1/matches")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), created["id"].(string)) {
		t.Fatalf("node B's /api/v1/matches = %s, without the match", body)
	}

	b.send(map[string]any{"type": "join_match", "code": created["code"]})
	joined := b.expect("match")["match"].(map[string]any)
	if len(joined["players"].([]any)) != 2 {
		t.Fatalf("after bob joined on node B: %v", joined)
	}
	a.send(map[string]any{"type": "start_match", "match_id": created["id"]})
	sa, sb := a.expect("round_started"), b.expect("round_started")
	roundID := sa["round_id"].(string)
	if sb["round_id"] != roundID || string(mustMarshal(t, sa["view"].(map[string]any)["tableau"])) != string(mustMarshal(t, sb["view"].(map[string]any)["tableau"])) {
		t.Fatalf("the nodes dealt differently: %v / %v", sa, sb)
	}

	moves := winningGame(t)
	for i := range 20 {
		if ans := b.move(roundID, i+1, moves[i]); ans["type"] != "move_ok" {
			t.Fatalf("bob's move %d on node B: %v", i+1, ans)
		}
	}
	// Alice, on node A, sees bob's progress made on node B.
	leaderboardWith(t, a, b.id, 20)
	for i, mv := range moves {
		if ans := a.move(roundID, i+1, mv); ans["type"] != "move_ok" {
			t.Fatalf("alice's move %d on node A: %v", i+1, ans)
		}
	}
	leaderboardWith(t, b, a.id, len(moves))
	b.send(map[string]any{"type": "resign", "round_id": roundID})
	overA, overB := a.expect("round_over"), b.expect("round_over")
	if string(mustMarshal(t, overA["results"])) != string(mustMarshal(t, overB["results"])) {
		t.Fatalf("results differ between the nodes:\n%v\n%v", overA["results"], overB["results"])
	}
	first := overA["results"].([]any)[0].(map[string]any)
	if first["player_id"] != a.id || first["status"] != "won" {
		t.Fatalf("results %v: alice won", overA["results"])
	}
	var rep match.Replay
	getJSON(t, cl.nodes[1]+overA["replay_url"].(string), &rep)
	checkReplay(t, rep, as[protocol.RoundOver](t, overA).Results)
	for _, p := range rep.Players {
		want := map[string]int{a.id: len(moves), b.id: 20}[p.PlayerID]
		if len(p.Moves) != want {
			t.Errorf("replay from node B: %s has %d moves, want %d", p.Name, len(p.Moves), want)
		}
	}
}

// TestMultiNodeReconnectElsewhere has a player drop from node A and
// reconnect to node B: they continue the same game from its log, and the
// replay holds every acknowledged move once.
func TestMultiNodeReconnectElsewhere(t *testing.T) {
	cl := newCluster(t, 2)
	a, b, sa, _ := startRace(t, cl.nodes[0], map[string]any{"seed": "1", "undo": "on", "countdown_s": 0, "max_players": 2})
	roundID := sa["round_id"].(string)
	moves := winningGame(t)
	for i := range 30 {
		if ans := a.move(roundID, i+1, moves[i]); ans["type"] != "move_ok" {
			t.Fatalf("move %d: %v", i+1, ans)
		}
	}
	a.conn.Close()

	a2 := resume(t, cl.nodes[1], a)
	st := a2.expect("round_started")
	if st["round_id"] != roundID || st["resumed"] != true || int(st["last_seq"].(float64)) != 30 {
		t.Fatalf("round_started on node B = %v, want round %s resumed at seq 30", st, roundID)
	}
	// A move already acknowledged on node A answers as a duplicate on B.
	if ans := a2.move(roundID, 30, moves[29]); ans["type"] != "move_ok" || ans["duplicate"] != true {
		t.Fatalf("retry of move 30 on node B = %v, want a duplicate move_ok", ans)
	}
	for i := 30; i < len(moves); i++ {
		if ans := a2.move(roundID, i+1, moves[i]); ans["type"] != "move_ok" {
			t.Fatalf("move %d on node B: %v", i+1, ans)
		}
	}
	b.send(map[string]any{"type": "resign", "round_id": roundID})
	over := b.expect("round_over")
	var rep match.Replay
	getJSON(t, cl.nodes[0]+over["replay_url"].(string), &rep)
	checkReplay(t, rep, as[protocol.RoundOver](t, over).Results)
	for _, p := range rep.Players {
		if p.PlayerID == a.id && (len(p.Moves) != len(moves) || p.Status != "won") {
			t.Fatalf("alice's replay: %d moves, %s; want %d, won", len(p.Moves), p.Status, len(moves))
		}
	}
}

// TestMultiNodeClockTakeover stops the node that drives a match's clock
// without a word to the others (its lease is left to expire): the other
// node takes the clock over and ends the round on its time limit.
func TestMultiNodeClockTakeover(t *testing.T) {
	cl := newCluster(t, 2)
	c := redis.NewClient(&redis.Options{Addr: cl.rs.Addr()})
	defer c.Close()
	a, b := dial(t, cl.nodes[0]), dial(t, cl.nodes[1])
	a.hello("alice")
	b.hello("bob")
	a.send(map[string]any{"type": "create_match", "settings": map[string]any{
		"seed": "1", "undo": "on", "countdown_s": 0, "max_players": 2, "time_limit_s": 4}})
	created := a.expect("match")["match"].(map[string]any)
	b.send(map[string]any{"type": "join_match", "code": created["code"]})
	b.expect("match")
	a.send(map[string]any{"type": "start_match", "match_id": created["id"]})
	sa := a.expect("round_started")
	b.expect("round_started")
	roundID := sa["round_id"].(string)
	lease := cl.prefix + "lease:match:" + created["id"].(string)
	if holder, err := c.Get(t.Context(), lease).Result(); err != nil || !strings.HasPrefix(holder, "node-") {
		t.Fatalf("the clock's lease = %q, %v: want a node's", holder, err)
	}
	// The holder dies: a node that no longer exists has the lease, which
	// only its expiry frees; its timers are gone with it.
	if err := c.Set(t.Context(), lease, "dead-node", 1500*time.Millisecond).Err(); err != nil {
		t.Fatal(err)
	}
	moves := winningGame(t)
	for i := range 10 {
		if ans := b.move(roundID, i+1, moves[i]); ans["type"] != "move_ok" {
			t.Fatalf("move %d: %v", i+1, ans)
		}
	}
	start := time.Now()
	overA, overB := a.expect("round_over"), b.expect("round_over")
	if time.Since(start) > 8*time.Second {
		t.Errorf("the round ended %v after the last move; the time limit was 4 s", time.Since(start))
	}
	if string(mustMarshal(t, overA["results"])) != string(mustMarshal(t, overB["results"])) {
		t.Fatalf("results differ:\n%v\n%v", overA["results"], overB["results"])
	}
	for _, e := range overA["results"].([]any) {
		if e := e.(map[string]any); e["status"] != "timed_out" {
			t.Errorf("result %v: want timed_out", e)
		}
	}
}

// TestMultiNodeDataLossVoids empties Redis in the middle of a round played
// on two nodes, as a Redis without persistence that restarted would be:
// every node sees the data epoch change, the round ends void (left out of
// the totals) and the match is over, on both nodes.
func TestMultiNodeDataLossVoids(t *testing.T) {
	cl := newCluster(t, 2)
	a, b := dial(t, cl.nodes[0]), dial(t, cl.nodes[1])
	a.hello("alice")
	b.hello("bob")
	a.send(map[string]any{"type": "create_match", "settings": map[string]any{
		"seed": "1", "undo": "on", "countdown_s": 0, "max_players": 2, "rounds": 3}})
	created := a.expect("match")["match"].(map[string]any)
	b.send(map[string]any{"type": "join_match", "code": created["code"]})
	b.expect("match")
	a.send(map[string]any{"type": "start_match", "match_id": created["id"]})
	roundID := a.expect("round_started")["round_id"].(string)
	b.expect("round_started")
	moves := winningGame(t)
	for i := range 10 {
		if ans := a.move(roundID, i+1, moves[i]); ans["type"] != "move_ok" {
			t.Fatalf("move %d: %v", i+1, ans)
		}
	}
	time.Sleep(300 * time.Millisecond) // every node has read the epoch
	if _, err := cl.rs.Do("FLUSHALL"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []*client{a, b} {
		over := c.expect("round_over")
		if over["round_id"] != roundID || over["void"] == nil || over["void"] == "" {
			t.Fatalf("round_over after the loss = %v, want the round void", over)
		}
		for _, tot := range over["totals"].([]any) {
			if tot := tot.(map[string]any); tot["total"].(float64) != 0 || len(tot["placings"].([]any)) != 0 {
				t.Errorf("totals count the void round: %v", tot)
			}
		}
		if mo := c.expect("match_over"); mo["void"] == nil {
			t.Fatalf("match_over after the loss = %v, want void", mo)
		}
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
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
