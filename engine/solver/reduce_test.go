package solver

import (
	"math/rand/v2"
	"os"
	"strconv"
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
	want, limit := testSize(60, 20, 4), testSize(50_000, 10_000, 2_000)
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

// twinsApply reports whether the position has two face-up twins (cards of
// the same rank and colour) in the tableau, one of them with cards on it:
// the twin-stack reduction has something to merge or to forbid.
func twinsApply(g *engine.Game) bool {
	x := &search{}
	if err := x.load(g.String(), g.Rules()); err != nil {
		return false
	}
	var up, covered uint64
	for i := range x.s.p {
		p := &x.s.p[i]
		for k := p.down; k < p.n; k++ {
			up |= 1 << p.c[k]
			if k+1 < p.n {
				covered |= 1 << p.c[k]
			}
		}
	}
	for c := range uint8(nCards) {
		if covered&(1<<c) != 0 && up&(1<<twin(c)) != 0 {
			return true
		}
	}
	return false
}

// TestTwinStacksAgainstBruteForce checks the twin-stack reduction (keys
// that do not tell which of two face-up twins carries which stack; a part
// of a run moved only so that the card under it goes up) on small
// positions where it applies at the start: a win must replay; an
// unwinnable verdict must not be contradicted by the exhaustive search
// over the engine's moves, nor by the solver without the reduction.
func TestTwinStacksAgainstBruteForce(t *testing.T) {
	want, limit := testSize(60, 20, 4), testSize(50_000, 10_000, 2_000)
	for _, r := range variants() {
		r.Undo = engine.UndoOff
		t.Run(variantName(r), func(t *testing.T) {
			t.Parallel()
			rng := variantRNG(r, 3, 23)
			var found, win, lose, confirmed int
			for tries := 0; found < want && tries < 200*want; tries++ {
				text := randomPosition(rng, r)
				g, err := engine.ParseGame(text, r)
				if err != nil || g.Status() != engine.Playing || !twinsApply(g) {
					continue
				}
				found++
				v := checkSolve(t, text, g, limit)
				switch v {
				case Winnable:
					win++
				case Unwinnable:
					lose++
				case confirmedUnwinnable:
					lose++
					confirmed++
				}
				plain := solveWith(g, Budget{Nodes: 1_000_000}, func(x *search) { x.noTwins = true })
				if v == Winnable && plain.Verdict == Unwinnable || v != Winnable && plain.Verdict == Winnable {
					t.Errorf("%s: %v with twin stacks, %v without", text, v, plain.Verdict)
				}
			}
			t.Logf("%d positions: %d winnable (replayed), %d unwinnable (%d confirmed)", found, win, lose, confirmed)
			if found < want/2 {
				t.Errorf("only %d positions where the reduction applies", found)
			}
		})
	}
}

// twinSwapPair builds a small position P with two twins u and u' (same
// rank and colour) in the tableau, face up or face down, carrying c and
// its twin d (or, both face up, only u carrying c), and Q: P with the
// stacks on u and u' exchanged. The twin-stack keys cannot tell P from Q.
// twinDown reports that u or u' is face down.
func twinSwapPair(rng *rand.Rand, r engine.Rules) (p, q string, twinDown bool) {
	name := func(c uint8) string { return engine.NewCard(int(cRank[c]), engine.Suit(cSuit[c])).String() }
	rank := 11 + rng.IntN(3)
	uRed := rng.IntN(2) == 0
	var uSuits, cSuits [2]uint8
	if uRed {
		uSuits, cSuits = [2]uint8{1, 2}, [2]uint8{0, 3}
	} else {
		uSuits, cSuits = [2]uint8{0, 3}, [2]uint8{1, 2}
	}
	if rng.IntN(2) == 0 {
		uSuits[0], uSuits[1] = uSuits[1], uSuits[0]
	}
	if rng.IntN(2) == 0 {
		cSuits[0], cSuits[1] = cSuits[1], cSuits[0]
	}
	var found [4]int
	for _, su := range uSuits {
		found[su] = max(0, rank-1-rng.IntN(3))
	}
	for _, su := range cSuits {
		found[su] = max(0, rank-2-rng.IntN(3))
	}
	used := map[uint8]bool{}
	var rest []uint8
	for su := range uint8(4) {
		for k := found[su] + 1; k <= 13; k++ {
			rest = append(rest, cardOf(k, su))
		}
	}
	u, u2 := cardOf(rank, uSuits[0]), cardOf(rank, uSuits[1])
	c, d := cardOf(rank-1, cSuits[0]), cardOf(rank-1, cSuits[1])
	oneEmpty := rng.IntN(4) == 0 // case A: u' face up with nothing on it
	for _, x := range []uint8{u, u2, c} {
		used[x] = true
	}
	if !oneEmpty {
		used[d] = true
	}
	rng.Shuffle(len(rest), func(i, j int) { rest[i], rest[j] = rest[j], rest[i] })
	take := func() (uint8, bool) {
		for _, x := range rest {
			if !used[x] {
				used[x] = true
				return x, true
			}
		}
		return noCard, false
	}
	grow := func(b *strings.Builder, top uint8) {
		for rng.IntN(2) != 0 {
			nx := uint8(noCard)
			for _, x := range rest {
				if !used[x] && goesOn(x, top) {
					nx = x
					break
				}
			}
			if nx == noCard {
				return
			}
			used[nx] = true
			b.WriteString(name(nx))
			top = nx
		}
	}
	downs := func(b *strings.Builder) {
		for range rng.IntN(4) {
			if x, ok := take(); ok {
				b.WriteString(name(x))
			}
		}
	}
	// Pile 0 holds u, pile 1 holds u'. head is u's or u''s part below
	// the stack, stack the cards from c or d up.
	var head, stack [2]string
	for k, tw := range []uint8{u, u2} {
		var b strings.Builder
		downs(&b)
		faceDown := !oneEmpty && rng.IntN(2) == 0
		if faceDown {
			twinDown = true
			b.WriteString(name(tw) + "|")
		} else {
			b.WriteString("|")
			// Now and then the twin lies in a run, on a card it is
			// built on.
			for _, x := range rest {
				if rng.IntN(2) == 0 && !used[x] && goesOn(tw, x) {
					used[x] = true
					b.WriteString(name(x))
					break
				}
			}
			b.WriteString(name(tw))
		}
		head[k] = b.String()
		var s strings.Builder
		switch {
		case k == 0:
			s.WriteString(name(c))
			grow(&s, c)
		case !oneEmpty:
			s.WriteString(name(d))
			grow(&s, d)
		}
		stack[k] = s.String()
	}
	var others []string
	for range 2 + rng.IntN(3) {
		var b strings.Builder
		downs(&b)
		x, ok := take()
		if !ok {
			break
		}
		b.WriteString("|" + name(x))
		grow(&b, x)
		others = append(others, b.String())
	}
	var talon []uint8
	for {
		x, ok := take()
		if !ok {
			break
		}
		talon = append(talon, x)
	}
	w := rng.IntN(len(talon) + 1)
	names := make([]string, len(talon))
	for i, x := range talon {
		names[i] = name(x)
	}
	tail := tailText(rng, r, names, w, found)
	perm := rng.Perm(nPiles)
	build := func(s0, s1 string) string {
		in := []string{head[0] + s0, head[1] + s1}
		in = append(in, others...)
		for len(in) < nPiles {
			in = append(in, "|")
		}
		piles := make([]string, nPiles)
		for i, k := range perm {
			piles[i] = in[k]
		}
		return strings.Join(piles, "/") + " " + tail
	}
	return build(stack[0], stack[1]), build(stack[1], stack[0]), twinDown
}

// TestTwinSwapKeepsWinnability checks the claim the twin-stack keys rest
// on: two positions that differ only by which of two twins (face up or
// face down) carries which stack get the same key and are both winnable or
// both not, by the exhaustive search over the engine's own moves. The
// default run is sized for `go test ./...` (a minute or two);
// KLONDIKE_TWIN_LONG=1 runs the large one (80 pairs a variant, 200,000
// positions a search; most of an hour).
func TestTwinSwapKeepsWinnability(t *testing.T) {
	want, limit := 16, 40_000
	if os.Getenv("KLONDIKE_TWIN_LONG") != "" {
		want, limit = 80, 200_000
	}
	want, limit = testSize(want, 8, 3), testSize(limit, 10_000, 2_000)
	for _, r := range variants() {
		r.Undo = engine.UndoOff
		t.Run(variantName(r), func(t *testing.T) {
			t.Parallel()
			rng := variantRNG(r, 7, 31)
			var found, compared, win, downCase int
			for tries := 0; found < want && tries < 50*want; tries++ {
				p, q, down := twinSwapPair(rng, r)
				gp, err1 := engine.ParseGame(p, r)
				gq, err2 := engine.ParseGame(q, r)
				if err1 != nil || err2 != nil || gp.Status() != engine.Playing || gq.Status() != engine.Playing {
					continue
				}
				var xp, xq search
				if xp.load(p, r) != nil || xq.load(q, r) != nil {
					continue
				}
				if xp.key() != xq.key() {
					t.Errorf("%s and %s: keys differ", p, q)
					continue
				}
				found++
				if down {
					downCase++
				}
				wp, cp := bruteForce(gp, limit)
				wq, cq := bruteForce(gq, limit)
				if wp != wq && (cp || wp) && (cq || wq) {
					t.Errorf("%s: winnable %v, but with the twins' stacks exchanged (%s) %v", p, wp, q, wq)
				}
				if cp && cq {
					compared++
					if wp {
						win++
					}
				}
				// The solver must agree with itself on both.
				sp := SolveGame(gp, Budget{Nodes: 200_000})
				sq := SolveGame(gq, Budget{Nodes: 200_000})
				if sp.Verdict != Unknown && sq.Verdict != Unknown && sp.Verdict != sq.Verdict {
					t.Errorf("%s: solver %v, exchanged %v", p, sp.Verdict, sq.Verdict)
				}
				if sp.Verdict == Unwinnable && wp || sq.Verdict == Unwinnable && wq {
					t.Errorf("%s: solver says unwinnable, brute force wins", p)
				}
			}
			t.Logf("%d pairs (%d with a twin face down), %d decided both ways by the exhaustive search (%d winnable)", found, downCase, compared, win)
			if found < want/2 {
				t.Errorf("only %d pairs", found)
			}
		})
	}
}

// TestTwinStacksObligation: a part of a run moved onto a card that an
// obligation says must be covered is a use of that card, not only an
// exchange of twin stacks, and must be made. Without it, deal 9799 in
// draw 1 (winnable) came out unwinnable after 277,673 nodes: on the way
// to its win a ten brought down from its foundation is covered by the run
// that lay on the other red ten.
func TestTwinStacksObligation(t *testing.T) {
	r := engine.DefaultRules()
	r.Draw = 1
	g, err := engine.NewGame(engine.NumberedDeal(9799), r)
	if err != nil {
		t.Fatal(err)
	}
	res := SolveGame(g, Budget{Nodes: 2_000_000})
	if res.Verdict != Winnable {
		t.Fatalf("deal 9799 draw 1: %v after %d nodes, want winnable", res.Verdict, res.Nodes)
	}
	if testing.Short() || raceOn {
		return
	}
	plain := solveWith(g, Budget{Nodes: 2_000_000}, func(x *search) { x.noTwins = true })
	if plain.Verdict != Winnable {
		t.Fatalf("deal 9799 draw 1 without twin stacks: %v", plain.Verdict)
	}
}

// TestFoundationCardsShareAUse: a card X brought down from its foundation
// onto a card W uses two lazy moves, the one that brought down the card
// above X and the one that brought W (from a foundation, or in draw 1
// with unlimited passes from the talon); only one can come right before
// it. So after a card comes down from a foundation any lazy move may come
// next (docs/solver.md, "Lazy moves"). When only the next card of the
// same suit could, each of these won positions came out unwinnable
// (the first only without twin stacks, the others with them too):
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
			res := solveWith(g, Budget{Nodes: 1_000_000}, func(x *search) { x.noTwins = noTwins })
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

// TestSmallPositionsAgainstReference compares the solver, with twin stacks
// and without, with the reference search (no reductions but aces and twos
// going up) on small random positions. With foundation-to-tableau moves
// the exhaustive search over the engine's moves rarely finishes on them
// (TestAgainstBruteForce), but the reference search, with its macro talon
// moves, decides nearly all. Where it decides, the verdicts must agree,
// and every win must replay. This is the check that found the lost wins
// of TestFoundationCardsShareAUse: the solver then called about one
// position in twenty with worrying back unwinnable though it is won.
//
// KLONDIKE_REF_POSITIONS=N and KLONDIKE_REF_SEED=S run N positions a
// variant from another seed (a wider search).
func TestSmallPositionsAgainstReference(t *testing.T) {
	positions := 200
	stream := uint64(41)
	if n, err := strconv.Atoi(os.Getenv("KLONDIKE_REF_POSITIONS")); err == nil && n > 0 {
		positions = n
	}
	if n, err := strconv.Atoi(os.Getenv("KLONDIKE_REF_SEED")); err == nil {
		stream = uint64(n)
	}
	positions = testSize(positions, 60, 6)
	for _, r := range variants() {
		r.Undo = engine.UndoOff
		t.Run(variantName(r), func(t *testing.T) {
			t.Parallel()
			rng := variantRNG(r, 9, stream)
			var decided, lose int
			for range positions {
				text := randomPosition(rng, r)
				g, err := engine.ParseGame(text, r)
				if err != nil || g.Status() != engine.Playing {
					continue
				}
				ref := solveRef(g, Budget{Nodes: 200_000})
				if ref.Verdict == Unknown {
					continue
				}
				decided++
				if ref.Verdict == Unwinnable {
					lose++
				}
				for _, noTwins := range []bool{false, true} {
					res := solveWith(g, Budget{Nodes: 500_000}, func(x *search) { x.noTwins = noTwins })
					if res.Verdict == Winnable {
						if err := replayOn(g.Clone(), res.Moves); err != nil {
							t.Errorf("%s (noTwins %v): %v", text, noTwins, err)
						}
					}
					if res.Verdict != Unknown && res.Verdict != ref.Verdict {
						t.Errorf("%s (noTwins %v): %v, reference %v", text, noTwins, res.Verdict, ref.Verdict)
					}
				}
			}
			t.Logf("%d of %d positions decided by the reference search (%d unwinnable)", decided, positions, lose)
			if decided < positions/2 {
				t.Errorf("the reference search decided only %d of %d", decided, positions)
			}
		})
	}
}
