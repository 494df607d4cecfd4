package solver

import (
	"errors"
	"strings"
	"testing"

	"klondike/engine"
)

// TestPouchAgainstReference solves positions part way through random
// games of every variant of Thumb and Pouch with the solver and with the
// reference search (no reductions but aces and twos going up at once):
// where both decide, they must agree, and every win must replay. Small
// random positions of that game are nearly all won (an empty pile takes
// any card); these are often lost, mostly with one pass, so that a win the
// reductions lost shows here.
func TestPouchAgainstReference(t *testing.T) {
	positions := size{long: 300, normal: 30, short: 8, race: 3}.get()
	for _, r := range pouchVariants() {
		r.Undo = engine.UndoOff
		t.Run(variantName(r), func(t *testing.T) {
			t.Parallel()
			rng := variantRNG(r, 17, 3)
			var decided, lose int
			for i := range positions {
				g := randomWalk(rng, engine.NumberedDealFor(r.Game, uint64(2000+i)), r, 20+rng.IntN(100))
				if g.Status() != engine.Playing {
					continue
				}
				text := g.String()
				ref := solveRef(g, Budget{Nodes: 200_000})
				res := SolveGame(g, Budget{Nodes: 500_000})
				for _, x := range []Result{ref, res} {
					if x.Verdict == Winnable {
						if err := replayOn(g.Clone(), x.Moves); err != nil {
							t.Errorf("%s: %v", text, err)
						}
					}
				}
				if ref.Verdict == Unknown || res.Verdict == Unknown {
					continue
				}
				if ref.Verdict != res.Verdict {
					t.Errorf("%s: %v, reference %v", text, res.Verdict, ref.Verdict)
				}
				decided++
				if res.Verdict == Unwinnable {
					lose++
				}
			}
			t.Logf("%d of %d positions decided by both (%d unwinnable)", decided, positions, lose)
		})
	}
}

// pouchDeal2Win is a winning line of deal 2 of Thumb and Pouch in its own
// rules (draw 1, one pass), as the solver found it: it builds in any other
// suit (T5-T2 puts 8S on 9C) and moves parts of runs to empty piles
// (T3:1-T7).
const pouchDeal2Win = `T7-T6 T7-T3 T5-T2 T5-T2 T4-T7 T5-T1 D D D W-F D D W-F D D D D D D D W-F D
W-F D W-F T4-F D D W-F T5-F D D D D D W-F D W-T1 D W-T2 T3-T2 T1-T2 T6-T1
T6-T7 T6-T3 T6-T5 T4-T5 T1-T6 T1-F T7-T1 T7-T3 T6-T7 T3-T6 T2-T1 T2-F T7-T2
W-F T3-T1 T2-T3 T2-F T4-F T7-T2 D W-T7 W-T4 W-F T3-T6 T3-F T6-T3 T6-F T1-F
T5-F T7-T5 T7-F T3:1-T7 T3-F T1-T3 W-T1 T2-F T1:1-T2 T1-F T3-T1 T3-F W-T3
T7-T2 T1:3-T7 T1-F T3:2-T1 T3-F T6-T4 W-T6 W-T5 T6-T5 W-T6 W-F T6-F T2-F
T7-F W-F W-T3 W-T3 W-F T2-F T7-F T1-F W-F T3-F T7-F T1-F T3-F T5-F T3-F
T3-F T5-F T4-F T4-F T5-F T3-F T4-F T5-F T3-F T5-F`

// TestPouchKnownWin replays a known winning line of Thumb and Pouch
// through the engine, under every undo policy, checks that it is not a
// line of Klondike (whose rules refuse it), and that the solver wins the
// deal too.
func TestPouchKnownWin(t *testing.T) {
	t.Parallel()
	r := engine.DefaultRulesFor(engine.ThumbAndPouch)
	d := engine.NumberedDealFor(engine.ThumbAndPouch, 2)
	var line []engine.Move
	for _, f := range strings.Fields(pouchDeal2Win) {
		m, err := engine.ThumbAndPouch.ParseMove(f)
		if err != nil {
			t.Fatal(err)
		}
		line = append(line, m)
	}
	for _, u := range []engine.UndoPolicy{engine.UndoOn, engine.UndoOff, engine.UndoNoReveal} {
		ru := r
		ru.Undo = u
		if err := replay(d, ru, line); err != nil {
			t.Errorf("undo %v: %v", u, err)
		}
	}
	kr := r
	kr.Game = engine.Klondike
	if err := replay(d, kr, line); err == nil {
		t.Error("the line wins Klondike as well: it shows nothing of Thumb and Pouch")
	}
	res := Solve(d, r, Budget{Nodes: 100_000})
	if res.Verdict != Winnable {
		t.Fatalf("deal 2: %v after %d nodes", res.Verdict, res.Nodes)
	}
	if err := replay(d, r, res.Moves); err != nil {
		t.Error(err)
	}
}

// TestPouchDealsSolved solves the first deals of Thumb and Pouch in its
// own rules (draw 1, one pass) and in draw 3 with unlimited passes, each
// on a budget of 200,000 nodes: every deal must be decided (the game is
// easy for the solver), every win must replay under every undo policy,
// and the lines must use the game's own moves: a part of a run to an
// empty pile (Tn:k-Tm).
func TestPouchDealsSolved(t *testing.T) {
	t.Parallel()
	deals := uint64(size{long: 200, normal: 30, short: 10, race: 4}.get())
	d3 := engine.DefaultRulesFor(engine.ThumbAndPouch)
	d3.Draw, d3.Passes = 3, 0
	for _, r := range []engine.Rules{engine.DefaultRulesFor(engine.ThumbAndPouch), d3} {
		t.Run(variantName(r), func(t *testing.T) {
			t.Parallel()
			var win, lose, counted int
			for n := uint64(1); n <= deals; n++ {
				d := engine.NumberedDealFor(r.Game, n)
				res := Solve(d, r, Budget{Nodes: 200_000})
				switch res.Verdict {
				case Unknown:
					t.Errorf("deal %d: unknown after %d nodes", n, res.Nodes)
				case Unwinnable:
					lose++
				case Winnable:
					win++
					for _, u := range []engine.UndoPolicy{engine.UndoOn, engine.UndoOff, engine.UndoNoReveal} {
						ru := r
						ru.Undo = u
						if err := replay(d, ru, res.Moves); err != nil {
							t.Fatalf("deal %d: the line does not replay (undo %v): %v\n%v", n, u, err, res.Moves)
						}
					}
					for _, m := range res.Moves {
						if m.Count > 0 {
							counted++
						}
					}
				}
			}
			t.Logf("%d deals: %d winnable, %d unwinnable; %d moves of a part of a run to an empty pile", deals, win, lose, counted)
			if win < int(deals)*9/10 {
				t.Errorf("only %d of %d deals won", win, deals)
			}
			if counted == 0 {
				t.Error("no line moves a part of a run to an empty pile")
			}
		})
	}
}

// TestUnsupportedGames: Whitehead and Double Klondike have no solver yet.
// Supports says so, and Solve, SolveGame and Hint answer Unknown with
// ErrUnsupportedGame, without searching; Klondike and Thumb and Pouch are
// supported and answer with no error.
func TestUnsupportedGames(t *testing.T) {
	for v := range engine.Variant(engine.NumVariants) {
		r := engine.DefaultRulesFor(v)
		d := engine.NumberedDealFor(v, 1)
		g, err := engine.NewGame(d, r)
		if err != nil {
			t.Fatal(err)
		}
		want := v == engine.Klondike || v == engine.ThumbAndPouch
		if Supports(v) != want {
			t.Errorf("Supports(%v) = %v, want %v", v, !want, want)
		}
		res, gres, h := Solve(d, r, Budget{Nodes: 1000}), SolveGame(g, Budget{Nodes: 1000}), Hint(g, Budget{Nodes: 1000})
		if want {
			if res.Err != nil || gres.Err != nil || h.Err != nil {
				t.Errorf("%v: errors %v, %v, %v", v, res.Err, gres.Err, h.Err)
			}
			continue
		}
		for _, x := range []Result{res, gres, {Verdict: h.Verdict, Err: h.Err, Nodes: h.Nodes, Moves: h.Line}} {
			if x.Verdict != Unknown || x.Nodes != 0 || x.Moves != nil || !errors.Is(x.Err, ErrUnsupportedGame) {
				t.Errorf("%v: %v, %d nodes, %d moves, error %v; want unknown with ErrUnsupportedGame", v, x.Verdict, x.Nodes, len(x.Moves), x.Err)
			}
		}
		if h.Move.Kind != engine.NoMove {
			t.Errorf("%v: hint %v", v, h.Move)
		}
		if msg := res.Err.Error(); !strings.Contains(msg, v.String()) {
			t.Errorf("%v: the error %q does not name the game", v, msg)
		}
	}
}

// TestPouchSafeRule checks the rule that sends a card up at once in Thumb
// and Pouch (every other foundation holds r − 2) against Klondike's (the
// other colour's hold r − 2, the partner r − 3), on a position where they
// differ: 6C with diamonds and hearts at 4 and spades at 3.
func TestPouchSafeRule(t *testing.T) {
	// 6C on pile 1; the other cards not up, four face down and one face
	// up on each other pile, the last five in the stock.
	found := map[engine.Suit]int{engine.Clubs: 5, engine.Diamonds: 4, engine.Hearts: 4, engine.Spades: 3}
	var rest []string
	for s := range engine.Suit(engine.NumSuits) {
		for rank := found[s] + 1; rank <= engine.NumRanks; rank++ {
			if c := engine.NewCard(rank, s); c != engine.NewCard(6, engine.Clubs) {
				rest = append(rest, c.String())
			}
		}
	}
	piles := []string{"|6C"}
	for p := range 6 {
		five := rest[5*p : 5*p+5]
		piles = append(piles, strings.Join(five[:4], "")+"|"+five[4])
	}
	text := strings.Join(piles, "/") + " |" + strings.Join(rest[30:], "") + " 5443 0 0"
	for _, tc := range []struct {
		game engine.Variant
		safe bool
	}{{engine.Klondike, true}, {engine.ThumbAndPouch, false}} {
		r := engine.DefaultRulesFor(tc.game)
		if _, err := engine.ParseGame(text, r); err != nil {
			t.Fatalf("%v: %v", tc.game, err)
		}
		x := &search{}
		if err := x.load(text, r); err != nil {
			t.Fatal(err)
		}
		c := uint8(engine.NewCard(6, engine.Clubs).Index())
		if !x.next(c) || x.safe(c) != tc.safe {
			t.Errorf("%v: 6C next %v, safe %v; want safe %v", tc.game, x.next(c), x.safe(c), tc.safe)
		}
	}
}
