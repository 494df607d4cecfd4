package solver

import (
	"math/rand/v2"
	"strings"
	"testing"

	"klondike/engine"
)

// TestRestartProves: a restart that is not streamlined makes every move of
// the complete search, so when it runs out of positions the deal is proved
// unwinnable there and then, without a complete search after it. Deal 67
// in draw 3 is unwinnable with a proof of about 30,000 nodes.
func TestRestartProves(t *testing.T) {
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
	alone := solveWith(g, Budget{Nodes: 2_000_000}, func(x *search) { x.phases = &none })
	if alone.Verdict != Unwinnable {
		t.Fatalf("complete search alone: %v after %d nodes", alone.Verdict, alone.Nodes)
	}
	// One restart, not streamlined and not shaken: the very search the
	// complete one makes. Its proof stands; no second search follows.
	one := []phase{{share: 500}}
	res := solveWith(g, Budget{Nodes: 2_000_000}, func(x *search) { x.phases = &one })
	if res.Verdict != Unwinnable || res.Nodes != alone.Nodes {
		t.Errorf("one restart: %v after %d nodes, want unwinnable after %d", res.Verdict, res.Nodes, alone.Nodes)
	}
	// A streamlined restart that runs out proves nothing: the complete
	// search must still run, and decide.
	stream := []phase{{stream: true, share: 500}}
	res = solveWith(g, Budget{Nodes: 2_000_000}, func(x *search) { x.phases = &stream })
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
	want, limit := 60, 50_000
	if testing.Short() {
		want, limit = 20, 10_000
	}
	if raceOn {
		want, limit = 4, 2_000
	}
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
				if lose == 0 && !raceOn {
					t.Errorf("no unwinnable position among %d: the check compares nothing", found)
				}
			})
		}
	}
}

// lastCardPosition is randomPosition with the waste set on the recycling
// cycle more often, so that the last-card rule applies at the start.
func lastCardPosition(rng *rand.Rand, r engine.Rules) string {
	text := randomPosition(rng, r)
	f := strings.Fields(text)
	waste, stock, _ := strings.Cut(f[1], "|")
	talon := waste + stock
	n := len(talon) / 2
	if n == 0 {
		return text
	}
	var w int
	switch rng.IntN(3) {
	case 0:
		w = n
	default:
		w = 3 * rng.IntN(n/3+1)
	}
	f[1] = talon[:2*w] + "|" + talon[2*w:]
	return strings.Join(f, " ")
}
