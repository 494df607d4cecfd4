package solver

import (
	"fmt"
	"math/rand/v2"

	"klondike/engine"
)

// variants are every rule combination the solver supports.
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

func variantName(r engine.Rules) string {
	p := "unlimited"
	if r.Passes != 0 {
		p = fmt.Sprint(r.Passes)
	}
	f := "f2t"
	if !r.FoundationToTableau {
		f = "nof2t"
	}
	return fmt.Sprintf("draw%d-passes%s-%s", r.Draw, p, f)
}

// variantRNG is a test's random source for one variant: each test picks
// its salt and stream, and the variant's rules pick the seed, so that the
// variants of one test see different positions.
func variantRNG(r engine.Rules, salt, stream uint64) *rand.Rand {
	seed := uint64(r.Draw)*100 + uint64(r.Passes)*10 + salt
	if r.FoundationToTableau {
		seed++
	}
	return rand.New(rand.NewPCG(seed, stream))
}
