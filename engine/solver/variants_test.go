package solver

import (
	"fmt"
	"math/rand/v2"

	"klondike/engine"
)

// variants are every rule combination of Klondike.
func variants() []engine.Rules {
	var out []engine.Rules
	for _, draw := range []int{1, 3} {
		for _, passes := range []int{0, 3, 1} {
			for _, f2t := range []bool{true, false} {
				r := engine.DefaultRules()
				r.Draw, r.Passes, r.FoundationToTableau = draw, passes, f2t
				out = append(out, r)
			}
		}
	}
	return out
}

// pouchVariants are every rule combination of Thumb and Pouch.
func pouchVariants() []engine.Rules {
	out := variants()
	for i := range out {
		out[i].Game = engine.ThumbAndPouch
	}
	return out
}

// allVariants are every rule combination of every game the solver plays.
func allVariants() []engine.Rules { return append(variants(), pouchVariants()...) }

func variantName(r engine.Rules) string {
	p := "unlimited"
	if r.Passes != 0 {
		p = fmt.Sprint(r.Passes)
	}
	f := "f2t"
	if !r.FoundationToTableau {
		f = "nof2t"
	}
	game := ""
	if r.Game != engine.Klondike {
		game = r.Game.String() + "-"
	}
	return fmt.Sprintf("%sdraw%d-passes%s-%s", game, r.Draw, p, f)
}

// variantRNG is a test's random source for one variant: each test picks
// its salt and stream, and the variant's rules pick the seed, so that the
// variants of one test see different positions.
func variantRNG(r engine.Rules, salt, stream uint64) *rand.Rand {
	seed := uint64(r.Game)*1000 + uint64(r.Draw)*100 + uint64(r.Passes)*10 + salt
	if r.FoundationToTableau {
		seed++
	}
	return rand.New(rand.NewPCG(seed, stream))
}
