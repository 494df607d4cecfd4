package match_test

import (
	"bytes"
	"context"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"klondike/engine"
	"klondike/lobby/memstore"
	"klondike/match"
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
	cfg := matchConfig(memstore.New(), memstore.NewCoord(), nopSink{})
	cfg.NewID = func() string { return "r-" + id }
	m, err := match.New(id, "C"+strconv.Itoa(n), s, false, cfg)
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

func (nopSink) Send([]string, match.Event) {}

// BenchmarkMovePath drives accepted moves through the match layer as the
// api does for a "move" message: Round.Move, with the seat's checks, the
// engine, Store.Append on the memory store, and the view made for ack
// (which the api writes into its reply). Each game is a solo round of legal moves chosen at random
// (fixed seed); a new round is dealt, outside the timer, when one ends or
// after benchGameMoves moves.
func BenchmarkMovePath(b *testing.B) {
	ctx := context.Background()
	var moves int
	ack := func(_ match.MoveResult, view *engine.View) { moves = view.Moves }
	benchMovePath(b, func(r *match.Round, seq int, move string) (match.MoveResult, error) {
		return r.Move(ctx, "a", seq, move, time.Now(), ack)
	})
	_ = moves
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

// TestMoveView plays a game's moves, each also retried, and retries of the
// move before: Move's ack gets the result Move returns and the view View
// gives at the same time, byte for byte; a nil ack changes nothing else.
func TestMoveView(t *testing.T) {
	ctx := context.Background()
	g := newMovePathRound(t, 0, rand.New(rand.NewPCG(3, 4)))
	defer g.m.Close()
	if len(g.moves) == 0 {
		t.Fatal("no moves")
	}
	for i, mv := range g.moves {
		for k, seq := range []int{i + 1, i + 1, max(i, 1)} { // the move, a retry, a retry of the one before
			now := time.Now()
			var inAck match.MoveResult
			var view []byte
			calls := 0
			ack := func(res match.MoveResult, v *engine.View) {
				calls++
				inAck, view = res, jsonOf(v)
			}
			if k == 2 {
				ack = nil
			}
			res, err := g.r.Move(ctx, "a", seq, g.moves[seq-1], now, ack)
			if err != nil {
				t.Fatalf("Move(seq %d, %s) = %v", seq, mv, err)
			}
			if want := (match.MoveResult{Seq: seq, Duplicate: k > 0, Events: res.Events}); res != want || k > 0 && res.Events != 0 {
				t.Fatalf("Move(seq %d, %s) = %+v, want seq %d, duplicate %v, no events for a duplicate", seq, mv, res, seq, k > 0)
			}
			if ack == nil {
				continue
			}
			want, last, err := g.r.View(ctx, "a", now)
			if err != nil || last != i+1 {
				t.Fatalf("View after seq %d = last seq %d, %v; want %d", seq, last, err, i+1)
			}
			if calls != 1 || inAck != res || !bytes.Equal(view, jsonOf(want)) {
				t.Fatalf("Move(seq %d, %s): %d acks with %+v and view\n%s\nwant %+v and\n%s", seq, mv, calls, inAck, view, res, jsonOf(want))
			}
		}
	}
}
