package api_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"strconv"
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

// redisCluster is several server nodes on a Redis Cluster of three masters
// with a replica each, every node with a cluster client of its own, as
// separate klondiked processes would have.
type redisCluster struct {
	rc     *redistest.Cluster
	prefix string
	nodes  []string // base URLs
}

func newRedisCluster(t *testing.T, n int) *redisCluster {
	t.Helper()
	cl := &redisCluster{rc: redistest.StartCluster(t, 3, 1), prefix: redistest.Prefix(t)}
	for range n {
		cl.nodes = append(cl.nodes, cl.start(t))
	}
	return cl
}

// start wires one more node and returns its base URL.
func (cl *redisCluster) start(t *testing.T) string {
	t.Helper()
	c := redis.NewClusterClient(cl.rc.Options())
	cfg := redisstore.Config{Prefix: cl.prefix}
	async := redisstore.NewChallenges(c, cl.prefix)
	srv := servertest.New(servertest.Config{
		Store:          redisstore.New(c, cfg),
		Players:        redisstore.NewPlayers(c, cl.prefix),
		Coord:          redisstore.NewCoord(c, cfg),
		Challenges:     async,
		Records:        async,
		Logger:         slog.New(slog.NewTextHandler(io.Discard, nil)),
		Limits:         api.Limits{MsgRate: 10000, MsgBurst: 10000},
		Match:          match.Config{LeaderboardEvery: 20 * time.Millisecond, LeaseTTL: time.Second},
		DataEpochEvery: 100 * time.Millisecond,
	})
	hs := httptest.NewServer(srv)
	t.Cleanup(func() { srv.Close(); hs.Close(); c.Close() })
	return hs.URL
}

// TestRealClusterRace has two players on two nodes race one match on the
// Redis Cluster: bob joins on node B the match alice made on node A, each
// sees the other's progress on the leaderboard, both get the same results,
// and node B serves the replay.
func TestRealClusterRace(t *testing.T) {
	t.Parallel()
	cl := newRedisCluster(t, 2)
	a, b := apitest.Dial(t, cl.nodes[0]), apitest.Dial(t, cl.nodes[1])
	_, roundID := startOnTwo(t, a, b, protocol.PartialSettings{Seed: new("1"), Undo: new("on"), CountdownS: new(0), MaxPlayers: new(2)})
	moves := winningGame(t)
	for i := range 20 {
		moveOK(t, b, roundID, i+1, moves[i])
	}
	leaderboardWith(t, a, b.PlayerID, 20)
	for i, mv := range moves {
		moveOK(t, a, roundID, i+1, mv)
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

// TestRealClusterFailover kills -9 the master of a round's slot during a
// race on two nodes: alice's moves answer unavailable while the slot has
// no master, then the same seq goes through on the same connection once
// the replica has taken over; the race ends on both nodes alike, and the
// replay holds every acknowledged move once. The window, what /readyz
// answered meanwhile and the node's store error counts are logged.
func TestRealClusterFailover(t *testing.T) {
	t.Parallel()
	cl := newRedisCluster(t, 2)
	a, b := apitest.Dial(t, cl.nodes[0]), apitest.Dial(t, cl.nodes[1])
	_, roundID := startOnTwo(t, a, b, protocol.PartialSettings{Seed: new("1"), Undo: new("on"), CountdownS: new(0), MaxPlayers: new(2)})
	moves := winningGame(t)
	acked := 0
	for ; acked < 30; acked++ {
		moveOK(t, a, roundID, acked+1, moves[acked])
	}
	logKey := cl.prefix + "{round:" + roundID + "}:log:" + a.PlayerID
	master, err := cl.rc.MasterOf(logKey)
	if err != nil {
		t.Fatal(err)
	}

	killed := time.Now()
	cl.rc.Kill(master)
	var firstFail, back time.Time
	rejected := 0
	readyz := map[int]int{}
	deadline := killed.Add(30 * time.Second)
	for back.IsZero() {
		if time.Now().After(deadline) {
			t.Fatalf("move %d refused for 30 s after the kill", acked+1)
		}
		ans := a.Move(roundID, acked+1, moves[acked])
		if ans.Type == protocol.TypeMoveOK {
			back = time.Now()
			break
		}
		rej := apitest.Decode[protocol.MoveRejected](t, ans)
		if rej.Code != protocol.CodeUnavailable {
			t.Fatalf("move %d during the failover = %s, want move_rejected unavailable", acked+1, ans)
		}
		if firstFail.IsZero() {
			firstFail = time.Now()
		}
		rejected++
		readyz[status(t, cl.nodes[0]+"/readyz")]++
		time.Sleep(20 * time.Millisecond) // a client's pause before it sends again
	}
	acked++
	if rejected == 0 {
		t.Fatal("no move was refused while the slot had no master")
	}
	promoted := cl.rc.WaitNewMaster(t, logKey, master)
	for ; acked < len(moves); acked++ {
		moveOK(t, a, roundID, acked+1, moves[acked])
	}
	leaderboardWith(t, b, a.PlayerID, len(moves))
	resign(b, roundID)
	overA, overB := apitest.Expect[protocol.RoundOver](a), apitest.Expect[protocol.RoundOver](b)
	if !reflect.DeepEqual(overA.Results, overB.Results) {
		t.Fatalf("results differ between the nodes:\n%+v\n%+v", overA.Results, overB.Results)
	}
	var rep protocol.Replay
	getJSON(t, cl.nodes[1]+overA.ReplayURL, &rep)
	checkReplay(t, rep, overA.Results)
	for _, p := range rep.Players {
		if p.PlayerID != a.PlayerID {
			continue
		}
		if len(p.Moves) != acked {
			t.Fatalf("replay has %d of alice's moves, %d were acknowledged", len(p.Moves), acked)
		}
		for i, e := range p.Moves {
			if e.Seq != i+1 {
				t.Fatalf("replay move %d = %+v", i, e)
			}
		}
	}
	t.Logf("failover during a race: moves refused as unavailable for %v (%d refusals, first %v after the kill), "+
		"new master %s; /readyz on the node meanwhile: %v; node A's %s",
		back.Sub(firstFail).Round(time.Millisecond), rejected, firstFail.Sub(killed).Round(time.Millisecond),
		promoted.Addr(), readyz, storeErrors(t, cl.nodes[0]))
}

var storeErrorLine = regexp.MustCompile(`(?m)^klondike_store_errors_total\{op="(\w+)"\} (\d+)$`)

// storeErrors returns the node's non-zero klondike_store_errors_total
// counts, as text.
func storeErrors(t *testing.T, base string) string {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var out []string
	for _, m := range storeErrorLine.FindAllStringSubmatch(string(body), -1) {
		if n, _ := strconv.Atoi(m[2]); n > 0 {
			out = append(out, m[1]+"="+m[2])
		}
	}
	return "klondike_store_errors_total: " + strings.Join(out, " ")
}
