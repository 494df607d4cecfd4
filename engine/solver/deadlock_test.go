package solver

import (
	"math/bits"
	"math/rand/v2"
	"testing"

	"klondike/engine"
)

// deadlockedScan is deadlocked written without the card sets that do and
// undo keep (a scan of the piles a call, reachability by positions): the
// dead-end test's reference.
func (x *search) deadlockedScan() bool {
	s := &x.s
	// pileOf[c] is 1 + the pile of tableau card c (nPiles+1: the waste),
	// at[c] its index; top[i] is the index of pile i's topmost leaver that
	// has not left, or −1; top[nPiles] is the waste's.
	var pileOf, at [nCards]int8
	var top [nPiles + 1]int8
	any := false
	for i := range s.p {
		p := &s.p[i]
		top[i] = -1
		if p.down == 0 {
			continue
		}
		for k := int8(0); k < int8(p.n); k++ {
			c := p.c[k]
			pileOf[c] = int8(i + 1)
			at[c] = k
		}
		top[i] = int8(p.down)
		any = true
	}
	top[nPiles] = -1
	if x.lastPass() && s.w > 0 {
		for k := int8(0); k < int8(s.w); k++ {
			c := s.t[k]
			pileOf[c] = nPiles + 1
			at[c] = k
		}
		top[nPiles] = int8(s.w) - 1
		any = true
	}
	if !any {
		return false
	}
	reachable := func(c uint8) bool {
		pi := pileOf[c]
		if pi == nPiles+1 {
			return at[c] > top[nPiles]
		}
		return pi == 0 || at[c] >= top[pi-1]
	}
	card := func(i int) uint8 {
		if i == nPiles {
			return s.t[top[i]]
		}
		return s.p[i].c[top[i]]
	}
	for changed := true; changed; {
		changed = false
		for i := range top {
			for top[i] >= 0 && x.canLeaveScan(card(i), reachable) {
				top[i]--
				changed = true
			}
		}
	}
	for i := range top {
		if top[i] >= 0 {
			return true
		}
	}
	return false
}

// canLeaveScan is deadlockedScan's test for a leaver a whose leavers above have left.
func (x *search) canLeaveScan(a uint8, reachable func(uint8) bool) bool {
	if cRank[a] == king {
		return true
	}
	su := cSuit[a]
	up := true
	for r := int8(x.s.f[su]) + 1; r < cRank[a]; r++ {
		if !reachable(cardOf(int(r), su)) {
			up = false
			break
		}
	}
	if up {
		return true
	}
	for on := klondikeRules.aboveSet[a]; on != 0; on &= on - 1 {
		t := uint8(bits.TrailingZeros64(on))
		if int8(x.s.f[cSuit[t]]) >= cRank[t] {
			if x.f2t {
				return true
			}
		} else if reachable(t) {
			return true
		}
	}
	return false
}

// TestDeadlockedSameAsScan plays random moves from numbered deals in every
// variant and checks at each position that deadlocked, on the card sets
// kept by do and undo, agrees with deadlockedScan, and that those sets
// and the hash are what rehash computes from scratch.
func TestDeadlockedSameAsScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	checked, dead := 0, 0
	for _, v := range []struct{ draw, passes int }{{1, 0}, {3, 0}, {1, 1}, {1, 3}, {3, 1}, {3, 3}} {
		for _, f2t := range []bool{true, false} {
			r := engine.DefaultRules()
			r.Draw, r.Passes, r.FoundationToTableau = v.draw, v.passes, f2t
			for deal := uint64(1); deal <= 40; deal++ {
				g, err := engine.NewGame(engine.NumberedDeal(deal), r)
				if err != nil {
					t.Fatal(err)
				}
				x := &search{}
				if err := x.load(g.String(), r); err != nil {
					t.Fatal(err)
				}
				for step := 0; step < 200; step++ {
					if got, want := x.deadlocked(), x.deadlockedScan(); got != want {
						t.Fatalf("draw %d, %d passes, f2t %v, deal %d, step %d: deadlocked = %v, scan %v", v.draw, v.passes, f2t, deal, step, got, want)
					}
					checkSets(t, &x.s)
					checked++
					if x.deadlocked() {
						dead++
					}
					ms := x.gen(nil, oblig{})
					if len(ms) == 0 {
						break
					}
					x.hist = append(x.hist, x.s.do(ms[rng.IntN(len(ms))]))
					if rng.IntN(8) == 0 && len(x.hist) > 0 {
						x.undoTo(len(x.hist) - 1)
					}
				}
			}
		}
	}
	t.Logf("%d positions, %d deadlocked", checked, dead)
}

// checkSets fails t unless the hash and the card sets and places that do
// and undo keep are those rehash computes from the piles.
func checkSets(t *testing.T, s *state) {
	t.Helper()
	c := *s
	c.rehash()
	if c.h != s.h || c.tab != s.tab || c.up != s.up || c.tops != s.tops || c.nxt != s.nxt {
		t.Fatalf("kept h %x tab %x up %x tops %x nxt %x, rehash %x %x %x %x %x", s.h, s.tab, s.up, s.tops, s.nxt, c.h, c.tab, c.up, c.tops, c.nxt)
	}
	for k := range uint8(nCards) {
		if c.tab&(1<<k) != 0 && (c.loc[k] != s.loc[k] || c.pos[k] != s.pos[k]) {
			t.Fatalf("card %d: kept at pile %d index %d, rehash %d %d", k, s.loc[k], s.pos[k], c.loc[k], c.pos[k])
		}
	}
}
