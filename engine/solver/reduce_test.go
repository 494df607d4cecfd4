package solver

import (
	"math/rand/v2"
	"testing"

	"klondike/engine"
)

// TestRestartProves: a restart that is not streamlined makes every move of
// the complete search, so when it runs out of positions the deal is proved
// unwinnable there and then, without a complete search after it. Deal 67
// in draw 3 is unwinnable with a short proof.
func TestRestartProves(t *testing.T) {
	t.Parallel()
	r := engine.DefaultRules()
	g, err := engine.NewGame(engine.NumberedDeal(67), r)
	if err != nil {
		t.Fatal(err)
	}
	full := SolveGame(g, Budget{Nodes: 2_000_000})
	if full.Verdict != Unwinnable {
		t.Fatalf("deal 67 draw 3: %v after %d nodes, want unwinnable", full.Verdict, full.Nodes)
	}
	// Without restarts: the complete search alone.
	none := []phase{}
	alone := solveWith(g, Budget{Nodes: 2_000_000}, searchOpts{phases: &none})
	if alone.Verdict != Unwinnable {
		t.Fatalf("complete search alone: %v after %d nodes", alone.Verdict, alone.Nodes)
	}
	// One restart, not streamlined and not shaken: the very search the
	// complete one makes. Its proof stands; no second search follows.
	one := []phase{{share: 500}}
	res := solveWith(g, Budget{Nodes: 2_000_000}, searchOpts{phases: &one})
	if res.Verdict != Unwinnable || res.Nodes != alone.Nodes {
		t.Errorf("one restart: %v after %d nodes, want unwinnable after %d", res.Verdict, res.Nodes, alone.Nodes)
	}
	// A streamlined restart that runs out proves nothing: the complete
	// search must still run, and decide.
	stream := []phase{{stream: true, share: 500}}
	res = solveWith(g, Budget{Nodes: 2_000_000}, searchOpts{phases: &stream})
	if res.Verdict != Unwinnable || res.Nodes <= alone.Nodes {
		t.Errorf("streamlined restart: %v after %d nodes, want unwinnable after more than %d", res.Verdict, res.Nodes, alone.Nodes)
	}
}

// lastTalonSafe reports whether, in draw 3, the position's last talon card
// goes up at once under the draw-3 talon rule of autoMove.
func lastTalonSafe(g *engine.Game) bool {
	x := &search{}
	r := g.Rules()
	if err := x.load(g.String(), r); err != nil {
		return false
	}
	s := &x.s
	if x.draw == 1 || s.tn == 0 {
		return false
	}
	for i := range s.p {
		if c := s.p[i].top(); c != noCard && x.next(c) && x.safe(c) {
			return false // a pile card would go first
		}
	}
	m, ok := x.autoMove()
	return ok && m.kind == mTalon && m.at == s.tn
}

// TestLastTalonCardAgainstBruteForce checks the draw-3 rule that sends the
// last talon card up at once (when it is safe and the waste is on the
// recycling cycle) on small positions where it applies at the start: a
// winnable verdict must replay, and an unwinnable one must be confirmed by
// the exhaustive search over the engine's own moves.
func TestLastTalonCardAgainstBruteForce(t *testing.T) {
	want, limit := size{long: 60, normal: 20, short: 8, race: 4}.get(), bruteLimit.get()
	for _, passes := range []int{0, 3} {
		for _, f2t := range []bool{true, false} {
			r := engine.DefaultRules()
			r.Draw, r.Passes, r.FoundationToTableau, r.Undo = 3, passes, f2t, engine.UndoOff
			t.Run(variantName(r), func(t *testing.T) {
				t.Parallel()
				rng := rand.New(rand.NewPCG(uint64(passes)*2+map[bool]uint64{true: 1}[f2t], 99))
				var found, win, lose, confirmed int
				for tries := 0; found < want && tries < 200*want; tries++ {
					text := lastCardPosition(rng, r)
					g, err := engine.ParseGame(text, r)
					if err != nil || g.Status() != engine.Playing || !lastTalonSafe(g) {
						continue
					}
					found++
					switch checkSolve(t, text, g, limit) {
					case Winnable:
						win++
					case Unwinnable:
						lose++
					case confirmedUnwinnable:
						lose++
						confirmed++
					}
				}
				t.Logf("%d positions: %d winnable (replayed), %d unwinnable (%d confirmed)", found, win, lose, confirmed)
				if found < want/2 {
					t.Errorf("only %d positions where the rule applies", found)
				}
				if lose == 0 && !raceOn && !testing.Short() {
					t.Errorf("no unwinnable position among %d: the check compares nothing", found)
				}
			})
		}
	}
}

// TestFoundationCardsShareAUse: a card X brought down from its foundation
// onto a card W uses two lazy moves, the one that brought down the card
// above X and the one that brought W (from a foundation, or in draw 1
// with unlimited passes from the talon); only one can come right before
// it. So after a card comes down from a foundation any lazy move may come
// next (docs/solver.md, "Lazy moves"). A solver that lets only the next
// card of the same suit follow calls each of these won positions
// unwinnable (the first only without twin stacks, the others with them
// too):
//
//   - draw 1, three passes (from TestTwinStacksAgainstBruteForce): 9♠
//     comes down onto T♦, after T♠ (above it) and T♦ came down;
//   - draw 1 with three passes and draw 3 (any variant with
//     foundation-to-tableau moves loses it): J♣ comes down onto Q♦, after
//     Q♣ and Q♦ came down (and K♣, which Q♦ covers);
//   - draw 1, unlimited passes: Q♣ comes down onto K♥, after K♣ came down
//     and K♥ came from the talon to an empty pile. Allowing only other
//     foundation cards after a foundation card still loses this one: a
//     talon card put on a pile is a lazy move too.
func TestFoundationCardsShareAUse(t *testing.T) {
	t.Parallel()
	rules := func(draw, passes int) engine.Rules {
		r := engine.DefaultRules()
		r.Draw, r.Passes, r.FoundationToTableau, r.Undo = draw, passes, true, engine.UndoOff
		return r
	}
	cases := []struct {
		text string
		r    engine.Rules
	}{
		{"JC|JHTC9H/|/KDQDKH|QH/7H9CTH8H|8C/|JD/|KC/| |QC 7T6K 2 0", rules(1, 3)},
		{"QHTH7HKD|8H/|KH/|9H/|/|/|/| JH| KQ6K 0 0", rules(1, 3)},
		{"QHTH7HKD|8H/|KH/|9H/|/|/|/| JH| KQ6K 0 0", rules(3, 0)},
		{"|/|/7DKD|JH/QH8H9H|9D/|/|/| |8DKHJDTHTDQD K67K 0 0", rules(1, 0)},
	}
	for _, c := range cases {
		g, err := engine.ParseGame(c.text, c.r)
		if err != nil {
			t.Fatalf("%s: %v", c.text, err)
		}
		for _, noTwins := range []bool{false, true} {
			res := solveWith(g, Budget{Nodes: 1_000_000}, searchOpts{noTwins: noTwins})
			if res.Verdict != Winnable {
				t.Errorf("%s (%s, noTwins %v): %v after %d nodes, want winnable", c.text, variantName(c.r), noTwins, res.Verdict, res.Nodes)
				continue
			}
			if err := replayOn(g.Clone(), res.Moves); err != nil {
				t.Errorf("%s (%s, noTwins %v): %v", c.text, variantName(c.r), noTwins, err)
			}
		}
	}
}
