package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"klondike/api/protocol"
	"klondike/engine"
	"klondike/lobby/redisstore/redistest"
	"klondike/match"
)

// echoReply is what the echo answers, as far as these tests read it.
type echoReply struct {
	Type     string `json:"type"`
	PlayerID string `json:"player_id"`
	Seq      int    `json:"seq"`
	Code     string `json:"code"`
	Message  string `json:"message"`
}

// echoCall sends msg on ws and returns the echo's answer.
func echoCall(t *testing.T, ws *websocket.Conn, msg any) echoReply {
	t.Helper()
	if err := ws.WriteJSON(msg); err != nil {
		t.Fatalf("write %+v: %v", msg, err)
	}
	var r echoReply
	if err := ws.ReadJSON(&r); err != nil {
		t.Fatalf("read the answer to %+v: %v", msg, err)
	}
	return r
}

func TestEchoStoreSeat(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		player string
		round  string
		join   int
	}{
		{"echo1", "echo-0", 0},
		{"echo4", "echo-0", 3},
		{"echo5", "echo-1", 0},
		{"echo12", "echo-2", 3},
	} {
		round, join, err := echoStoreSeat(c.player)
		if err != nil || round != c.round || join != c.join {
			t.Errorf("echoStoreSeat(%q) = %q, %d, %v; want %q, %d", c.player, round, join, err, c.round, c.join)
		}
	}
	for _, p := range []string{"", "echo", "echo0", "bot3", "echo-1"} {
		if _, _, err := echoStoreSeat(p); err == nil {
			t.Errorf("echoStoreSeat(%q): no error", p)
		}
	}
}

// TestEchoStore: the echo with --echo-store appends every move with the
// store's Append before it answers, its players four to a round: the
// store's log holds each player's moves in order, the store's checks
// refuse a move out of step, and bots play against it as against the
// plain echo.
func TestEchoStore(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t) // skips without redis-server (fails in CI, which requires it)
	rules := echoRules(&config{Draw: 3})
	raw, view, err := echoPosition(rules)
	if err != nil {
		t.Fatal(err)
	}
	legal := view.LegalMoves(rules, nil)
	log, err := openStoreLog(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer log.close()
	url, stop, err := startEcho("127.0.0.1:0", raw, log)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	// Five players by hand, one after the other: four in round echo-0, the
	// fifth alone in echo-1. Each plays three moves.
	const players, moves = 5, 3
	sent := map[string][]protocol.LogEntry{}
	var first *websocket.Conn
	for i := range players {
		ws, _, err := websocket.DefaultDialer.DialContext(ctx, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer ws.Close()
		r := echoCall(t, ws, protocol.Hello{Type: protocol.TypeHello, Name: "p" + strconv.Itoa(i)})
		if r.Type != protocol.TypeWelcome || r.PlayerID != echoPlayerPrefix+strconv.Itoa(i+1) {
			t.Fatalf("hello of connection %d: %+v, want the welcome of player %d", i+1, r, i+1)
		}
		round, _, _ := echoStoreSeat(r.PlayerID)
		for seq := 1; seq <= moves; seq++ {
			text := legal[(i+seq)%len(legal)].String()
			if r := echoCall(t, ws, protocol.Move{Type: protocol.TypeMove, RoundID: round, Seq: seq, Move: text}); r.Type != protocol.TypeMoveOK || r.Seq != seq {
				t.Fatalf("%s's move %d %q: %+v, want move_ok", r.PlayerID, seq, text, r)
			}
			sent[r.PlayerID] = append(sent[r.PlayerID], protocol.LogEntry{Seq: seq, Move: text})
		}
		if i == 0 {
			first = ws
		}
	}

	// The store's checks: another move at a taken seq, or one past the
	// next, is refused. (So is a resent move: its at_ms is the echo's
	// clock's again, where klondiked answers a retry before the store.)
	last := sent["echo1"][moves-1]
	other := ""
	for _, m := range legal {
		if m.String() != last.Move {
			other = m.String()
			break
		}
	}
	if other == "" {
		t.Fatalf("the echo's view has no legal move but %q", last.Move)
	}
	for _, seq := range []int{moves, moves + 2} {
		if r := echoCall(t, first, protocol.Move{Type: protocol.TypeMove, RoundID: "echo-0", Seq: seq, Move: other}); r.Type != protocol.TypeError || r.Code != protocol.CodeUnavailable {
			t.Errorf("%q at seq %d after %d moves: %+v, want the store's refusal", other, seq, moves, r)
		}
	}

	for player, want := range sent {
		round, _, _ := echoStoreSeat(player)
		got, err := log.Store().Log(ctx, round, player)
		if err != nil {
			t.Fatalf("Log(%s, %s): %v", round, player, err)
		}
		if len(got) != len(want) {
			t.Fatalf("Log(%s, %s) = %+v, want %+v", round, player, got, want)
		}
		for i := range got {
			if got[i].Seq != want[i].Seq || got[i].Move != want[i].Move || got[i].AtMs < 0 || (i > 0 && got[i].AtMs < got[i-1].AtMs) {
				t.Errorf("Log(%s, %s)[%d] = %+v, want seq %d, move %q, at_ms from the echo's start", round, player, i, got[i], want[i].Seq, want[i].Move)
			}
		}
	}
	for round, n := range map[string]int{"echo-0": 4, "echo-1": 1} {
		sts, err := log.Store().Standings(ctx, round)
		if err != nil || len(sts) != n {
			t.Fatalf("Standings(%s) = %+v, %v: want %d players", round, sts, err, n)
		}
		for _, st := range sts {
			if st.Moves != moves || st.Status != engine.Playing || st.Name != st.PlayerID {
				t.Errorf("Standings(%s): %+v, want %d moves, playing", round, st, moves)
			}
		}
	}
	c := srv.Client(t)
	keys, err := c.Keys(ctx, log.Prefix+"*").Result()
	if err != nil || len(keys) == 0 {
		t.Fatalf("keys under %s: %v, %v", log.Prefix, keys, err)
	}
	for _, k := range keys {
		if d := c.PTTL(ctx, k).Val(); d <= 0 || d > echoLogTTL {
			t.Errorf("%s: TTL %v, want up to %v", k, d, echoLogTTL)
		}
	}

	// Bots: every acknowledged move is in its player's log, whose seqs
	// run from 1 without a gap (the store's check).
	rep := shortRun(t, "--baseline", "--server", url, "--players", "6", "--duration", "1s", "--ramp", "0", "--think", "5ms")
	var logged int64
	for n := players + 1; n <= players+6; n++ {
		player := echoPlayerPrefix + strconv.Itoa(n)
		round, _, _ := echoStoreSeat(player)
		got, err := log.Store().Log(ctx, round, player)
		if err != nil && !errors.Is(err, match.ErrNotFound) {
			t.Fatalf("Log(%s, %s): %v", round, player, err)
		}
		for i, e := range got {
			if e.Seq != i+1 {
				t.Fatalf("Log(%s, %s)[%d]: seq %d, want %d", round, player, i, e.Seq, i+1)
			}
		}
		logged += int64(len(got))
	}
	// A move sent as the run ended may be logged and not answered yet.
	if logged < rep.Moves.Acked || logged > rep.Moves.Sent {
		t.Errorf("%d entries logged, %d moves sent and %d acknowledged: want one entry a move", logged, rep.Moves.Sent, rep.Moves.Acked)
	}
}

// TestEchoStoreServe: --echo-listen with --echo-store opens the store and
// serves until its context ends.
func TestEchoStoreServe(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var errw bytes.Buffer
	if st := runMain(ctx, []string{"--echo-listen", "127.0.0.1:0", "--echo-store", srv.URL()}, io.Discard, &errw); st != 0 || !strings.Contains(errw.String(), "under klondike-loadtest-echo-store:") {
		t.Errorf("--echo-listen --echo-store: status %d, stderr %q; want 0 and the store's prefix", st, errw.String())
	}
}

func TestEchoStoreFlags(t *testing.T) {
	t.Parallel()
	const local = "redis://127.0.0.1:6379/0"
	cfg, err := parseConfig([]string{"--echo-listen", "127.0.0.1:0", "--echo-store", local}, io.Discard)
	if err != nil || cfg.EchoStore != local {
		t.Errorf("--echo-listen --echo-store: %v, store %q", err, cfg.EchoStore)
	}
	for _, args := range [][]string{
		{"--echo-store", local},
		{"--echo-listen", "127.0.0.1:0", "--echo-store", "redis://10.0.0.1:6379/0"},
		{"--echo-listen", "127.0.0.1:0", "--echo-store", "http://127.0.0.1:6379/0"},
		{"--echo-listen", "127.0.0.1:0", "--echo-store", local, "--echo-redis", local},
	} {
		if _, err := parseConfig(args, io.Discard); err == nil || !strings.Contains(err.Error(), "echo-store") {
			t.Errorf("parseConfig(%q): %v, want an error naming --echo-store", args, err)
		}
	}
}
