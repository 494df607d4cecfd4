package main

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"klondike/match"
	"klondike/match/redisstore/redistest"
)

// node is a klondiked process of a test.
type node struct {
	cmd  *exec.Cmd
	addr string
}

// startNode runs the binary on a free loopback port against the Redis and
// waits until it listens.
func startNode(t *testing.T, bin, redisURL, prefix string) *node {
	t.Helper()
	cmd := exec.Command(bin, "--addr", "127.0.0.1:0", "--redis", redisURL, "--redis-prefix", prefix, "--log-format", "json")
	cmd.Env = append(os.Environ(), "KLONDIKE_MSG_RATE=10000", "KLONDIKE_MSG_BURST=10000", "KLONDIKE_WINNABLE_WORKERS=0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	addrc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			var line struct{ Msg, Addr string }
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "klondiked listening" {
				addrc <- line.Addr
			}
		}
	}()
	select {
	case addr := <-addrc:
		return &node{cmd: cmd, addr: addr}
	case <-time.After(30 * time.Second):
		t.Fatal("klondiked did not start")
	}
	return nil
}

// wsClient is a player's connection in these tests.
type wsClient struct {
	t       *testing.T
	c       *websocket.Conn
	id, tok string
}

func connect(t *testing.T, addr string) *wsClient {
	t.Helper()
	c, _, err := websocket.DefaultDialer.Dial("ws://"+addr+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &wsClient{t: t, c: c}
}

func (w *wsClient) send(v map[string]any) {
	w.t.Helper()
	if err := w.c.WriteJSON(v); err != nil {
		w.t.Fatal(err)
	}
}

func (w *wsClient) expect(types ...string) map[string]any {
	w.t.Helper()
	_ = w.c.SetReadDeadline(time.Now().Add(20 * time.Second))
	for {
		var m map[string]any
		if err := w.c.ReadJSON(&m); err != nil {
			w.t.Fatalf("waiting for %v: %v", types, err)
		}
		for _, typ := range types {
			if m["type"] == typ {
				return m
			}
		}
		if m["type"] == "error" {
			w.t.Fatalf("waiting for %v: %v", types, m)
		}
	}
}

func (w *wsClient) hello(name, token string) map[string]any {
	w.t.Helper()
	w.send(map[string]any{"type": "hello", "name": name, "token": token})
	m := w.expect("welcome")
	w.id, w.tok = m["player_id"].(string), m["token"].(string)
	return m
}

func (w *wsClient) move(roundID string, seq int, mv string) map[string]any {
	w.t.Helper()
	w.send(map[string]any{"type": "move", "round_id": roundID, "seq": seq, "move": mv})
	return w.expect("move_ok", "move_rejected")
}

// TestKillNodeMidRound runs two klondiked processes on one Redis (AOF on)
// and kills -9 the one that dealt the round and drives its clock, in the
// middle of the round. Its player reconnects to the other node and plays
// on from the log; the other node takes the clock over and ends the round
// on its time limit; the replay holds every acknowledged move exactly once.
func TestKillNodeMidRound(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs klondiked processes")
	}
	bin := filepath.Join(t.TempDir(), "klondiked")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	rs := redistest.Start(t, redistest.WithAOF())
	prefix := redistest.Prefix(t)
	n1, n2 := startNode(t, bin, rs.URL(), prefix), startNode(t, bin, rs.URL(), prefix)

	a, b := connect(t, n1.addr), connect(t, n2.addr)
	a.hello("alice", "")
	b.hello("bob", "")
	a.send(map[string]any{"type": "create_match", "settings": map[string]any{
		"seed": "1", "undo": "on", "countdown_s": 0, "max_players": 2, "time_limit_s": 15}})
	info := a.expect("match")["match"].(map[string]any)
	b.send(map[string]any{"type": "join_match", "code": info["code"]})
	b.expect("match")
	a.send(map[string]any{"type": "start_match", "match_id": info["id"]})
	roundID := a.expect("round_started")["round_id"].(string)
	b.expect("round_started")

	moves := readMoves(t)
	for i := range 30 {
		if ans := a.move(roundID, i+1, moves[i]); ans["type"] != "move_ok" {
			t.Fatalf("alice's move %d: %v", i+1, ans)
		}
	}
	for i := range 5 {
		if ans := b.move(roundID, i+1, moves[i]); ans["type"] != "move_ok" {
			t.Fatalf("bob's move %d: %v", i+1, ans)
		}
	}

	if err := n1.cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	_ = n1.cmd.Wait()

	a2 := connect(t, n2.addr)
	if w := a2.hello("", a.tok); w["resumed"] != true || a2.id != a.id {
		t.Fatalf("welcome on node 2 = %v", w)
	}
	st := a2.expect("round_started")
	if st["round_id"] != roundID || int(st["last_seq"].(float64)) != 30 {
		t.Fatalf("round_started on node 2 = %v, want round %s at seq 30", st, roundID)
	}
	for i := 30; i < len(moves); i++ {
		if ans := a2.move(roundID, i+1, moves[i]); ans["type"] != "move_ok" {
			t.Fatalf("alice's move %d on node 2: %v", i+1, ans)
		}
	}
	// Bob plays no more: the round ends on its time limit, on node 2's
	// clock once node 1's lease expired.
	over := b.expect("round_over")
	a2.expect("round_over")
	resp, err := http.Get("http://" + n2.addr + over["replay_url"].(string))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var rep match.Replay
	if err := json.NewDecoder(resp.Body).Decode(&rep); err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Players {
		want, status := len(moves), "won"
		if p.PlayerID == b.id {
			want, status = 5, "timed_out"
		}
		if len(p.Moves) != want || p.Status != status {
			t.Errorf("%s: %d moves, %s; want %d, %s", p.Name, len(p.Moves), p.Status, want, status)
		}
		for i, e := range p.Moves {
			if e.Seq != i+1 || !strings.EqualFold(e.Move, moves[i]) {
				t.Fatalf("%s's move %d = %+v, want %s", p.Name, i+1, e, moves[i])
			}
		}
	}
}

// readMoves reads the api's fixture of a won game: deal #1, draw 3,
// unlimited passes, undo on.
func readMoves(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../../api/testdata/deal1-draw3-win.txt")
	if err != nil {
		t.Fatal(err)
	}
	var moves []string
	for _, line := range strings.Split(string(b), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			moves = append(moves, line)
		}
	}
	return moves
}
