package api

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"klondike/api/ws"
	"klondike/engine"
	"klondike/match"
)

// benchAPIGameMoves is the longest game BenchmarkMovePathAPI plays before
// it deals a new one.
const benchAPIGameMoves = 300

// apiBenchGame is one solo round of BenchmarkMovePathAPI: its player's
// connection (ws.Server.Detached: no socket, no writer, the benchmark takes
// what is queued) and the frames of the moves the player will send, chosen
// beforehand by the engine's legal move generator on a copy of the game.
type apiBenchGame struct {
	c      *ws.Conn
	frames [][]byte
}

// newAPIBenchGame says hello as a new player, creates a match of one on a
// fixed deal, starts it, waits for the round to run and scripts its moves.
func newAPIBenchGame(tb testing.TB, srv *Server, n int, rng *rand.Rand) apiBenchGame {
	tb.Helper()
	ctx := context.Background()
	ses, _, err := srv.Lobby.Hello(ctx, "p"+strconv.Itoa(n), "")
	if err != nil {
		tb.Fatal(err)
	}
	seed, zero, limit := strconv.Itoa(n+1), 0, match.MaxTimeLimitS
	info, err := srv.Lobby.CreateMatch(ctx, ses.PlayerID, match.PartialSettings{Seed: &seed, CountdownS: &zero, TimeLimitS: &limit})
	if err != nil {
		tb.Fatal(err)
	}
	mt, err := srv.Lobby.Match(ctx, info.ID)
	if err != nil {
		tb.Fatal(err)
	}
	if err := mt.Start(ctx, ses.PlayerID); err != nil {
		tb.Fatal(err)
	}
	var r *match.Round
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		if r = mt.Round(); r != nil && r.Running(time.Now()) {
			break
		}
		if r != nil && r.Over() { // a deal stuck from the start
			return newAPIBenchGame(tb, srv, n+1000, rng)
		}
		if time.Now().After(deadline) {
			tb.Fatal("the round did not start")
		}
	}
	g, err := engine.NewGame(r.Deal, r.Rules)
	if err != nil {
		tb.Fatal(err)
	}
	c := srv.WS.Detached("127.0.0.1")
	c.SetUserID(ses.PlayerID)
	frames := moveFrames(tb, g, r.ID, rng)
	if len(frames) == 0 { // a deal stuck from the start, its round about to end
		c.Close(websocket.CloseNormalClosure, "")
		return newAPIBenchGame(tb, srv, n+1000, rng)
	}
	return apiBenchGame{c: c, frames: frames}
}

// BenchmarkMovePathAPI is one accepted move through the api as a
// connection's read goroutine handles it, without the socket: the frame
// handed to the Service, decoded and dispatched (its metrics, the lobby's
// lookup of the round, Round.Move on the memory store behind the store's
// metrics), move_ok encoded and queued on the connection, and the
// AfterMessage hook.
func BenchmarkMovePathAPI(b *testing.B) {
	srv := NewTestServer(TestConfig{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	defer srv.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	n := 0
	cur := newAPIBenchGame(b, srv, n, rng)
	next := 0
	okPrefix := []byte(`{"type":"move_ok"`)
	var msgs [][]byte
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if next == len(cur.frames) {
			b.StopTimer()
			cur.c.Close(websocket.CloseNormalClosure, "")
			n++
			cur, next = newAPIBenchGame(b, srv, n, rng), 0
			b.StartTimer()
		}
		cur.c.Handle(cur.frames[next])
		// As the writer takes them, giving the queue its last batch back.
		msgs = cur.c.TakeQueued(msgs)
		if len(msgs) != 1 || !bytes.HasPrefix(msgs[0], okPrefix) {
			b.Fatalf("move %d: %s", next+1, msgs)
		}
		next++
	}
	b.StopTimer()
	cur.c.Close(websocket.CloseNormalClosure, "")
}

// moveFrames scripts a game of at most benchAPIGameMoves random legal moves
// (no undo) from g, which it plays, as the move frames of round roundID.
func moveFrames(tb testing.TB, g *engine.Game, roundID string, rng *rand.Rand) [][]byte {
	var legal []engine.Move
	var frames [][]byte
	for len(frames) < benchAPIGameMoves {
		legal = g.LegalMoves(legal[:0])
		if len(legal) > 0 && legal[len(legal)-1].Kind == engine.Undo {
			legal = legal[:len(legal)-1]
		}
		if len(legal) == 0 {
			break
		}
		mv := legal[rng.IntN(len(legal))]
		if _, err := g.Apply(mv); err != nil {
			tb.Fatal(err)
		}
		seq := strconv.Itoa(len(frames) + 1)
		frames = append(frames, []byte(`{"type":"move","id":"m`+seq+`","round_id":"`+roundID+`","seq":`+seq+`,"move":"`+mv.String()+`"}`))
	}
	return frames
}
