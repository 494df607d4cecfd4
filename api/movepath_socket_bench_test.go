package api

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/gorilla/websocket"

	"klondike/engine"
)

// socketBenchGame is one solo game of BenchmarkMovePathSocket: a client's
// connection and the frames of its moves, scripted beforehand.
type socketBenchGame struct {
	ws     *websocket.Conn
	frames [][]byte
}

// readUntil reads frames until one starts with {"type":"<typ>"; it fails
// on an error frame or a refused move.
func readUntil(tb testing.TB, ws *websocket.Conn, typ string) []byte {
	tb.Helper()
	prefix := []byte(`{"type":"` + typ + `"`)
	for {
		_, b, err := ws.ReadMessage()
		if err != nil {
			tb.Fatalf("waiting for %s: %v", typ, err)
		}
		if bytes.HasPrefix(b, prefix) {
			return b
		}
		if bytes.HasPrefix(b, []byte(`{"type":"error"`)) || bytes.HasPrefix(b, []byte(`{"type":"move_rejected"`)) {
			tb.Fatalf("waiting for %s: %s", typ, b)
		}
	}
}

// newSocketBenchGame connects a new player, who creates a solo match on a
// fixed deal and starts it, and scripts the moves of its game.
func newSocketBenchGame(tb testing.TB, srv *Server, url string, n int, rng *rand.Rand) socketBenchGame {
	tb.Helper()
	ws, _, err := websocket.DefaultDialer.Dial(url, nil)
	if err != nil {
		tb.Fatal(err)
	}
	send := func(s string) {
		if err := ws.WriteMessage(websocket.TextMessage, []byte(s)); err != nil {
			tb.Fatal(err)
		}
	}
	send(`{"type":"hello","name":"p` + strconv.Itoa(n) + `"}`)
	readUntil(tb, ws, "welcome")
	send(`{"type":"create_match","settings":{"seed":"` + strconv.Itoa(n+1) + `","countdown_s":0,"time_limit_s":10800}}`)
	var reply struct {
		Match struct{ ID string } `json:"match"`
	}
	if err := json.Unmarshal(readUntil(tb, ws, "match"), &reply); err != nil {
		tb.Fatal(err)
	}
	send(`{"type":"start_match","match_id":"` + reply.Match.ID + `"}`)
	var started struct {
		RoundID string `json:"round_id"`
	}
	if err := json.Unmarshal(readUntil(tb, ws, "round_started"), &started); err != nil {
		tb.Fatal(err)
	}
	r, err := srv.Lobby.Round(context.Background(), started.RoundID)
	if err != nil {
		tb.Fatal(err)
	}
	g, err := engine.NewGame(r.Deal, r.Rules)
	if err != nil {
		tb.Fatal(err)
	}
	frames := moveFrames(tb, g, r.ID, rng)
	if len(frames) == 0 { // a deal stuck from the start
		ws.Close()
		return newSocketBenchGame(tb, srv, url, n+1000, rng)
	}
	return socketBenchGame{ws: ws, frames: frames}
}

// BenchmarkMovePathSocket is one accepted move over a real WebSocket on
// loopback, the whole server in this process: the client writes the
// frame and reads until its move_ok. Its allocations are the server's
// (read pump, dispatch, match, store, writer) and the client's (gorilla's
// write and read of two frames), and the leaderboards of the round.
func BenchmarkMovePathSocket(b *testing.B) {
	srv := NewTestServer(TestConfig{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Limits: Limits{MsgRate: -1}, NewSessionsPerMinute: -1})
	hs := httptest.NewServer(srv)
	defer func() {
		srv.Close()
		hs.Close()
	}()
	url := "ws" + strings.TrimPrefix(hs.URL, "http") + "/ws"
	rng := rand.New(rand.NewPCG(1, 2))
	n := 0
	cur := newSocketBenchGame(b, srv, url, n, rng)
	next := 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if next == len(cur.frames) {
			b.StopTimer()
			cur.ws.Close()
			n++
			cur, next = newSocketBenchGame(b, srv, url, n, rng), 0
			b.StartTimer()
		}
		if err := cur.ws.WriteMessage(websocket.TextMessage, cur.frames[next]); err != nil {
			b.Fatal(err)
		}
		readUntil(b, cur.ws, "move_ok")
		next++
	}
	b.StopTimer()
	cur.ws.Close()
}
