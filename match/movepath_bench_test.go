package match_test

import (
	"context"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"klondike/engine"
	"klondike/match"
	"klondike/match/memstore"
)

// benchGameMoves is the longest game BenchmarkMovePath plays before it
// deals a new round: a game that only draws and recycles would go on for
// ever, and a real one is a few hundred moves.
const benchGameMoves = 300

// movePathRound is one solo round of the benchmark, with the moves its
// player will make, chosen beforehand by the engine's legal move generator
// on a copy of the game.
type movePathRound struct {
	m     *match.Match
	r     *match.Round
	moves []string
}

// newMovePathRound starts a match of one player on a fresh deal over the
// memory store, waits for its round to run and scripts its moves.
func newMovePathRound(tb testing.TB, n int, rng *rand.Rand) movePathRound {
	tb.Helper()
	ctx := context.Background()
	s := match.DefaultSettings()
	s.CountdownS, s.TimeLimitS = 0, match.MaxTimeLimitS
	s.Seed = strconv.Itoa(n + 1)
	id := "m" + strconv.Itoa(n)
	m, err := match.New(id, "C"+strconv.Itoa(n), s, false, match.Config{
		Store: memstore.New(), Coord: memstore.NewCoord(), Sink: nopSink{}, Logger: quiet,
		NewID: func() string { return "r-" + id },
	})
	if err != nil {
		tb.Fatal(err)
	}
	if err := m.Join(ctx, match.Player{ID: "a", Name: "alice"}); err != nil {
		tb.Fatal(err)
	}
	if err := m.Start(ctx, "a"); err != nil {
		tb.Fatal(err)
	}
	var r *match.Round
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		if r = m.Round(); r != nil && r.Running(time.Now()) {
			break
		}
		if r != nil && r.Over() {
			// A deal stuck from the start ends its round at once.
			m.Close()
			return newMovePathRound(tb, n+1000, rng)
		}
		if time.Now().After(deadline) {
			tb.Fatal("the round did not start")
		}
	}
	g, err := engine.NewGame(r.Deal, r.Rules)
	if err != nil {
		tb.Fatal(err)
	}
	var legal []engine.Move
	var moves []string
	for len(moves) < benchGameMoves {
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
		moves = append(moves, mv.String())
	}
	if len(moves) == 0 { // a deal stuck from the start, its round about to end
		m.Close()
		return newMovePathRound(tb, n+1000, rng)
	}
	return movePathRound{m: m, r: r, moves: moves}
}

type nopSink struct{}

func (nopSink) Send(string, []byte) {}

// BenchmarkMovePath drives accepted moves through the match layer as the
// api does for a "move" message: Round.MoveAck, with the seat's checks,
// the engine, Store.Append on the memory store, and the view the reply
// carries handed to ack. Each game is a solo round of legal moves chosen
// at random (fixed seed); a new round is dealt, outside the timer, when one
// ends or after benchGameMoves moves.
func BenchmarkMovePath(b *testing.B) {
	ctx := context.Background()
	var reply []byte
	ack := func(res match.MoveResult) {
		// What the api does with the result: its view goes into the reply.
		reply = append(reply[:0], res.View...)
	}
	benchMovePath(b, func(r *match.Round, seq int, move string) (match.MoveResult, error) {
		return r.MoveAck(ctx, "a", seq, move, time.Now(), ack)
	})
	_ = reply
}

// BenchmarkMovePathReply is BenchmarkMovePath through Round.MoveReply, as
// the api calls it now: the view is written into the reply in ack, with no
// copy of its own.
func BenchmarkMovePathReply(b *testing.B) {
	ctx := context.Background()
	var reply []byte
	ack := func(res match.MoveResult) { reply = res.AppendView(reply[:0]) }
	benchMovePath(b, func(r *match.Round, seq int, move string) (match.MoveResult, error) {
		return r.MoveReply(ctx, "a", seq, move, time.Now(), ack)
	})
	_ = reply
}

// benchMovePath plays scripted games' moves with play, dealing a new
// round outside the timer when a game's script ends.
func benchMovePath(b *testing.B, play func(r *match.Round, seq int, move string) (match.MoveResult, error)) {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 0
	cur := newMovePathRound(b, n, rng)
	next := 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if next == len(cur.moves) {
			b.StopTimer()
			cur.m.Close()
			n++
			cur, next = newMovePathRound(b, n, rng), 0
			b.StartTimer()
		}
		res, err := play(cur.r, next+1, cur.moves[next])
		if err != nil || res.Duplicate {
			b.Fatalf("move %d (%s): %v (duplicate %v)", next+1, cur.moves[next], err, res.Duplicate)
		}
		next++
	}
	b.StopTimer()
	cur.m.Close()
}

// TestMoveReply plays the same moves on two rounds of one deal, one by
// MoveAck and one by MoveReply: the view MoveReply's ack writes is MoveAck's
// View, byte for byte, for accepted moves and for retries, and MoveReply
// leaves View empty and the rest of the result the same.
func TestMoveReply(t *testing.T) {
	ctx := context.Background()
	rng1, rng2 := rand.New(rand.NewPCG(3, 4)), rand.New(rand.NewPCG(3, 4))
	a, b := newMovePathRound(t, 0, rng1), newMovePathRound(t, 0, rng2)
	defer a.m.Close()
	defer b.m.Close()
	if len(a.moves) == 0 || len(a.moves) != len(b.moves) {
		t.Fatalf("%d and %d moves", len(a.moves), len(b.moves))
	}
	for i, mv := range a.moves {
		for _, seq := range []int{i + 1, i + 1, max(i, 1)} { // the move, a retry, a retry of the one before
			now := time.Now() // for a; b's clock is at the same time of its round
			var want match.MoveResult
			resA, errA := a.r.MoveAck(ctx, "a", seq, a.moves[seq-1], now, func(res match.MoveResult) { want = res })
			var got []byte
			var inAck match.MoveResult
			resB, errB := b.r.MoveReply(ctx, "a", seq, b.moves[seq-1], b.r.StartsAt.Add(now.Sub(a.r.StartsAt)), func(res match.MoveResult) {
				inAck = res
				got = res.AppendView([]byte("x"))
			})
			if errA != nil || errB != nil {
				t.Fatalf("move %d (%s): %v, %v", seq, mv, errA, errB)
			}
			if string(got) != "x"+string(want.View) || string(resA.View) != string(want.View) {
				t.Fatalf("move %d: MoveReply's view\n%s\nwant\n%s", seq, got, want.View)
			}
			if resB.View != nil || inAck.View != nil {
				t.Fatalf("move %d: MoveReply gave a View", seq)
			}
			if resB.Seq != resA.Seq || resB.Duplicate != resA.Duplicate || resB.Events != resA.Events ||
				inAck.Seq != resA.Seq || inAck.Duplicate != resA.Duplicate || inAck.Events != resA.Events {
				t.Fatalf("move %d: MoveReply %+v (in ack %+v), MoveAck %+v", seq, resB, inAck, resA)
			}
			if v := resB.AppendView(nil); len(v) != 0 {
				t.Fatalf("move %d: the returned result still writes a view: %s", seq, v)
			}
		}
	}
}
