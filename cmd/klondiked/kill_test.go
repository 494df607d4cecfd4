package main

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"klondike/api/apitest"
	"klondike/api/protocol"
	"klondike/lobby/redisstore/redistest"
)

// built is the klondiked binary the kill tests share: one build, not one
// a test.
var built struct {
	once sync.Once
	dir  string
	bin  string
	out  []byte
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// buildKlondiked builds the binary once for the package's tests.
func buildKlondiked(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		built.dir, built.err = os.MkdirTemp("", "klondiked-test-")
		if built.err != nil {
			return
		}
		built.bin = filepath.Join(built.dir, "klondiked")
		built.out, built.err = exec.Command("go", "build", "-o", built.bin, ".").CombinedOutput()
	})
	if built.err != nil {
		t.Fatalf("go build: %v\n%s", built.err, built.out)
	}
	return built.bin
}

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

// dial connects a player to the node; its waits outlast the round's time
// limit.
func dial(t *testing.T, n *node) *apitest.Client {
	t.Helper()
	c := apitest.Dial(t, "http://"+n.addr)
	c.Timeout = 20 * time.Second
	return c
}

// moveOK plays a move that must be accepted.
func moveOK(t *testing.T, c *apitest.Client, roundID string, seq int, mv string) {
	t.Helper()
	if ans := c.Move(roundID, seq, mv); ans.Type != protocol.TypeMoveOK {
		t.Fatalf("%s's move %d %s: %s", c.PlayerID, seq, mv, ans)
	}
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
	t.Parallel()
	bin := buildKlondiked(t)
	rs := redistest.Start(t, redistest.WithAOF())
	prefix := redistest.Prefix(t)
	n1, n2 := startNode(t, bin, rs.URL(), prefix), startNode(t, bin, rs.URL(), prefix)

	a, b := dial(t, n1), dial(t, n2)
	a.Hello("alice")
	b.Hello("bob")
	info := apitest.Request[protocol.Match](a, protocol.CreateMatch{Type: protocol.TypeCreateMatch, Settings: protocol.PartialSettings{
		Seed: new("1"), Undo: new("on"), CountdownS: new(0), MaxPlayers: new(2), TimeLimitS: new(10)}}).Match
	apitest.Request[protocol.Match](b, protocol.MatchRef{Type: protocol.TypeJoinMatch, Code: info.Code})
	a.Send(protocol.MatchRef{Type: protocol.TypeStartMatch, MatchID: info.ID})
	roundID := apitest.Expect[protocol.RoundStarted](a).RoundID
	apitest.Expect[protocol.RoundStarted](b)

	moves := readMoves(t)
	for i := range 30 {
		moveOK(t, a, roundID, i+1, moves[i])
	}
	for i := range 5 {
		moveOK(t, b, roundID, i+1, moves[i])
	}

	if err := n1.cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	_ = n1.cmd.Wait()

	a2 := dial(t, n2)
	if w := a2.Resume(a.Token); !w.Resumed || w.PlayerID != a.PlayerID {
		t.Fatalf("welcome on node 2 = %+v", w)
	}
	if st := apitest.Expect[protocol.RoundStarted](a2); st.RoundID != roundID || st.LastSeq != 30 {
		t.Fatalf("round_started on node 2 = %+v, want round %s at seq 30", st, roundID)
	}
	for i := 30; i < len(moves); i++ {
		moveOK(t, a2, roundID, i+1, moves[i])
	}
	// Bob plays no more: the round ends on its time limit, on node 2's
	// clock once node 1's lease expired.
	over := apitest.Expect[protocol.RoundOver](b)
	apitest.Expect[protocol.RoundOver](a2)
	resp, err := http.Get("http://" + n2.addr + over.ReplayURL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var rep protocol.Replay
	if err := json.NewDecoder(resp.Body).Decode(&rep); err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Players {
		want, status := len(moves), "won"
		if p.PlayerID == b.PlayerID {
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

// TestKillNodeMidAttempt kills -9 the node a player's attempt at a
// challenge is played on: the player resumes it on the other node from
// their last acknowledged move, wins it, and the board and the replay hold
// every move exactly once.
func TestKillNodeMidAttempt(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs klondiked processes")
	}
	t.Parallel()
	bin := buildKlondiked(t)
	rs := redistest.Start(t, redistest.WithAOF())
	prefix := redistest.Prefix(t)
	n1, n2 := startNode(t, bin, rs.URL(), prefix), startNode(t, bin, rs.URL(), prefix)

	a := dial(t, n1)
	a.Hello("alice")
	ch := apitest.Request[protocol.AsyncRound](a, protocol.CreateChallenge{Type: protocol.TypeCreateChallenge, WindowS: 600,
		Settings: protocol.PartialSettings{Seed: new("1"), Undo: new("on")}}).Round
	st := apitest.Request[protocol.RoundStarted](a, protocol.RoundRef{Type: protocol.TypeStartAttempt, RoundID: ch.RoundID})
	moves := readMoves(t)
	for i := range 30 {
		moveOK(t, a, st.RoundID, i+1, moves[i])
	}

	if err := n1.cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	_ = n1.cmd.Wait()

	a2 := dial(t, n2)
	a2.Resume(a.Token)
	re := apitest.Request[protocol.RoundStarted](a2, protocol.RoundRef{Type: protocol.TypeStartAttempt, RoundID: ch.RoundID})
	if !re.Resumed || re.RoundID != st.RoundID || re.LastSeq != 30 {
		t.Fatalf("resumed on node 2 = %+v, want %s at seq 30", re, st.RoundID)
	}
	for i := 30; i < len(moves); i++ {
		moveOK(t, a2, st.RoundID, i+1, moves[i])
	}
	over := apitest.Expect[protocol.AttemptOver](a2)
	if over.Result.Status.String() != "won" || over.Result.Moves != len(moves) || over.Result.Rank != 1 {
		t.Fatalf("attempt_over = %+v, want won in %d moves", over, len(moves))
	}
	apitest.Request[protocol.AsyncRound](a2, protocol.RoundRef{Type: protocol.TypeCloseChallenge, RoundID: ch.RoundID})
	resp, err := http.Get("http://" + n2.addr + protocol.ReplayPath(ch.RoundID))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var rep struct{ Players []protocol.PlayerReplay }
	if err := json.NewDecoder(resp.Body).Decode(&rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Players) != 1 || len(rep.Players[0].Moves) != len(moves) {
		t.Fatalf("replay: %+v", rep.Players)
	}
	for i, e := range rep.Players[0].Moves {
		if e.Seq != i+1 || !strings.EqualFold(e.Move, moves[i]) {
			t.Fatalf("move %d = %+v, want %s", i+1, e, moves[i])
		}
	}
}
