package solver

import (
	"math/rand/v2"
	"strings"
	"testing"

	"klondike/engine"
)

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
	want, limit := size{long: 60, normal: 20, short: 8, race: 4}.get(), bruteLimit.get()
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
				plain := solveWith(g, Budget{Nodes: 1_000_000}, searchOpts{noTwins: true})
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
// both not, by the exhaustive search over the engine's own moves.
func TestTwinSwapKeepsWinnability(t *testing.T) {
	want := size{long: 16, normal: 8, short: 3, race: 3}.get()
	limit := size{long: 40_000, normal: 10_000, short: 4_000, race: 2_000}.get()
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
// exchange of twin stacks, and must be made: on the way to the win of
// deal 9799 in draw 1, a ten brought down from its foundation is covered
// by the run that lay on the other red ten.
func TestTwinStacksObligation(t *testing.T) {
	t.Parallel()
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
	plain := solveWith(g, Budget{Nodes: 2_000_000}, searchOpts{noTwins: true})
	if plain.Verdict != Winnable {
		t.Fatalf("deal 9799 draw 1 without twin stacks: %v", plain.Verdict)
	}
}
